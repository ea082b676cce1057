import Foundation
import Metrics
import PodiumRuntime

/// The process's own figures, read from `/proc/self` at each scrape: resident memory, CPU time
/// and start time, under the names Prometheus's client libraries use (`process_…`).
final class ProcessMetrics: Sendable {
    private let cpu = FloatingPointCounter(label: MetricNames.cpuSeconds)
    private let lastTicks = Locked<UInt64>(0)
    private let startTime = Gauge(label: MetricNames.startTime)
    private let residentMemory = Gauge(label: MetricNames.residentMemory)
    private let startedAt = Date().timeIntervalSince1970
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
    private static let ticksPerSecond = UInt64(sysconf(Int32(_SC_CLK_TCK)))

    func sample() {
        startTime.record(startedAt)
        if let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        {
            residentMemory.record(pages * Self.pageSize)
        }
        // Fields 14 and 15 of /proc/self/stat (utime, stime) in clock ticks, counted after the
        // command name, which ends with the last ')'.
        if let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        {
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 12, let user = UInt64(fields[11]), let system = UInt64(fields[12]) {
                let ticks = user + system
                let growth = lastTicks.withLock { last -> UInt64 in
                    defer { last = max(last, ticks) }
                    return ticks > last ? ticks - last : 0
                }
                if growth > 0 { cpu.increment(by: Double(growth) / Double(Self.ticksPerSecond)) }
            }
        }
    }
}
