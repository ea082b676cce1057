/// The states of a process's long-running loops (``LoopService``), by name: a process is ready
/// only while every loop it registered runs, so readiness is computed from the loops themselves
/// and never from a flag set once.
public final class LoopStates: Sendable {
    /// Where one loop is in its life.
    public enum State: String, Sendable, Equatable {
        /// Made, not running yet.
        case starting
        /// Doing its work.
        case running
        /// Shutting down gracefully.
        case stopping
        /// Stopped by the shutdown.
        case stopped
        /// Ended (returned or threw) while it should have been running.
        case failed
    }

    private let states = Locked<[String: State]>([:])

    public init() {}

    /// Records `state` for the loop `name` (a loop seen the first time is registered).
    public func set(_ name: String, _ state: State) {
        states.withLock { $0[name] = state }
    }

    /// Registers the loop `name` as ``State/starting`` unless it is known already.
    public func register(_ name: String) {
        states.withLock { if $0[name] == nil { $0[name] = .starting } }
    }

    /// Every loop's state, by name.
    public var snapshot: [String: State] { states.value }

    /// At least one loop is registered and all of them run.
    public var allRunning: Bool {
        let snapshot = states.value
        return !snapshot.isEmpty && snapshot.values.allSatisfy { $0 == .running }
    }

    /// The loops that ended while they should have been running, sorted.
    public var failed: [String] { states.value.filter { $0.value == .failed }.map(\.key).sorted() }
}
