import Foundation
import PodiumKit
import Testing

/// The stores that keep the refresh token between launches.
@Suite struct CredentialStoreTests {
    @Test func aFileStoreKeepsEachAccountInAFileOnlyItsOwnerReads() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("podiumkit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = FileCredentialStore(directory: folder.appendingPathComponent("credentials"))
        let account = "https://podium.example.com:8443/"
        #expect(try store.load(account: account) == nil)

        let first = PodiumStoredCredential(
            playerId: "p1", refreshToken: "refresh-1", refreshExpiresAt: Date(timeIntervalSince1970: 1_800_000_000))
        try store.save(first, account: account)
        let second = PodiumStoredCredential(
            playerId: "p1", refreshToken: "refresh-2", refreshExpiresAt: Date(timeIntervalSince1970: 1_800_000_060))
        try store.save(second, account: account)
        try store.save(first, account: "another")
        #expect(try store.load(account: account) == second)
        #expect(try store.load(account: "another") == first)

        let manager = FileManager.default
        let file = store.fileURL(account: account)
        #expect(file.deletingLastPathComponent().path == store.directory.path)
        #expect(file.lastPathComponent == "https%3A%2F%2Fpodium.example.com%3A8443%2F.json")
        let mode = try manager.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        let folderMode = try manager.attributesOfItem(atPath: store.directory.path)[.posixPermissions] as? NSNumber
        #expect(folderMode?.intValue == 0o700)
        // Nothing left behind by the replacing writes.
        #expect(
            try manager.contentsOfDirectory(atPath: store.directory.path).sorted() == [
                "another.json", file.lastPathComponent,
            ])

        try store.delete(account: account)
        #expect(try store.load(account: account) == nil)
        try store.delete(account: account)  // deleting nothing is no error
    }

    @Test func anInMemoryStoreForgetsOnDelete() throws {
        let store = InMemoryCredentialStore()
        let credential = PodiumStoredCredential(playerId: "p", refreshToken: "r", refreshExpiresAt: Date())
        try store.save(credential, account: "a")
        #expect(try store.load(account: "a") == credential)
        #expect(try store.load(account: "b") == nil)
        try store.delete(account: "a")
        #expect(try store.load(account: "a") == nil)
    }
}
