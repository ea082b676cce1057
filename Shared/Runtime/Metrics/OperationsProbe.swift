/// What a process's operations listener (`PODIUM_METRICS`) asks the process: whether it is ready
/// (`/health/ready`), and to bring its sampled metrics up to date just before a scrape (gauges
/// such as stream positions, and counters kept as running totals elsewhere).
public protocol OperationsProbe: Sendable {
    /// Whether the process is ready to serve.
    var isReady: Bool { get async }
    /// The paths of the SQLite databases the process owns, for their sizes.
    var databaseFiles: [String] { get }
    /// Updates the sampled metrics; called before each scrape.
    func sampleMetrics() async
    /// The state of each of the process's loops, by name (`/health/ready` lists them).
    var loopStates: [String: LoopStates.State] { get }
}

extension OperationsProbe {
    public var loopStates: [String: LoopStates.State] { [:] }
}
