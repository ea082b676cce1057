import Foundation

/// Reads one line from the terminal with echo turned off, and turns it back on afterwards,
/// even after Ctrl-C.
enum SilentPrompt {
    static func read(_ prompt: String) throws -> String {
        FileHandle.standardError.write(Data(prompt.utf8))
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else {
            throw CommandFailure("cannot read the terminal's settings to hide the password")
        }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        savedTerminal = original
        let previousHandler = signal(SIGINT, restoreAndExit)
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        defer {
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
            signal(SIGINT, previousHandler)
            savedTerminal = nil
            FileHandle.standardError.write(Data("\n".utf8))
        }
        guard let line = readLine(strippingNewline: true) else { throw CommandFailure("no password given") }
        return line
    }
}

/// The terminal settings to restore if Ctrl-C interrupts the prompt. Written only by the main
/// thread around the prompt and read only by the SIGINT handler it installs meanwhile, so the
/// unsynchronized access is safe in this single-threaded program.
nonisolated(unsafe) private var savedTerminal: termios?

private func restoreAndExit(_ signal: Int32) {
    if var terminal = savedTerminal { _ = tcsetattr(STDIN_FILENO, TCSANOW, &terminal) }
    _exit(130)
}
