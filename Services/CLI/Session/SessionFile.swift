import Foundation
import PodiumMessages

/// The file that keeps the logged-in player's ``SessionGrant`` between commands:
/// `$PODIUM_SESSION_FILE`, or `~/.podium/session.json`.
///
/// It holds bearer tokens, so it is written with mode 0600 (a directory it creates gets 0700),
/// atomically: a reader sees the old grant or the new one, never half of one.
struct SessionFile {
    let path: String

    /// `$PODIUM_SESSION_FILE` when set and not empty, else `~/.podium/session.json`.
    static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let configured = environment["PODIUM_SESSION_FILE"], !configured.isEmpty { return configured }
        let home =
            environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + "/.podium/session.json"
    }

    /// The stored grant, or nil when there is no session file.
    func load() throws -> SessionGrant? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("cannot read the session file \(path)")
        }
        guard let grant = try? WireCodec.decode(SessionGrant.self, from: data) else {
            throw CommandFailure("\(path) is not a Podium session file; delete it, then log in again")
        }
        warnIfShared()
        return grant
    }

    /// Replaces the stored grant (mode 0600, atomically).
    func save(_ grant: SessionGrant) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try makeDirectory(directory.isEmpty ? "." : directory)
        var contents = try WireCodec.encode(grant)
        contents.append(contentsOf: Array("\n".utf8))
        let temporary = path + ".tmp-\(ProcessInfo.processInfo.processIdentifier)"
        // A leftover (or planted) file or link of that name is removed, never written through.
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw systemFailure("cannot create", temporary) }
        // The mode given to open() is reduced by the umask: set it exactly.
        let written = contents.withUnsafeBytes { buffer in
            fchmod(descriptor, 0o600) == 0 && writeAll(descriptor, buffer) && fsync(descriptor) == 0
        }
        let failure = written ? nil : systemFailure("cannot write", temporary)
        close(descriptor)
        if let failure {
            unlink(temporary)
            throw failure
        }
        guard rename(temporary, path) == 0 else {
            let failure = systemFailure("cannot replace", path)
            unlink(temporary)
            throw failure
        }
    }

    /// Deletes the session file; returns whether there was one.
    @discardableResult
    func remove() throws -> Bool {
        guard unlink(path) == 0 else {
            if errno == ENOENT { return false }
            throw systemFailure("cannot delete", path)
        }
        return true
    }

    private func makeDirectory(_ directory: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw CommandFailure("\(directory) is not a directory") }
            return
        }
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CommandFailure("cannot create the directory \(directory): \(error.localizedDescription)")
        }
        guard chmod(directory, 0o700) == 0 else { throw systemFailure("cannot set the mode of", directory) }
    }

    private func writeAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < buffer.count {
            guard let base = buffer.baseAddress else { return false }
            let count = write(descriptor, base + offset, buffer.count - offset)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    /// Someone widened the mode after we wrote it; say so, since the file holds bearer tokens.
    private func warnIfShared() {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & 0o077 != 0 else { return }
        complain(
            "warning: \(path) is readable by other users (mode \(String(status.st_mode & 0o777, radix: 8))); "
                + "run chmod 600 on it")
    }

    private func systemFailure(_ action: String, _ target: String) -> CommandFailure {
        CommandFailure("\(action) \(target): \(String(cString: strerror(errno)))")
    }
}
