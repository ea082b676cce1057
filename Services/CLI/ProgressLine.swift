import Foundation

/// A one-line progress report on standard error, only when it is a terminal and there is
/// more than one event.
final class ProgressLine {
    private let total: Int
    private let enabled: Bool
    private var lastDrawn = Date.distantPast

    init(total: Int) {
        self.total = total
        enabled = total > 1 && isatty(STDERR_FILENO) == 1
    }

    func update(sent: Int, acknowledged: Int, failed: Int) {
        guard enabled, Date().timeIntervalSince(lastDrawn) > 0.2 else { return }
        lastDrawn = Date()
        let line = "\rsent \(sent)/\(total)  acknowledged \(acknowledged)  rejected \(failed)   "
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        if enabled { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
