import Foundation

/// One figure measured several times: the median is reported, with min and max beside it.
struct Series: Codable, Sendable {
    var runs: [Double]

    init(_ runs: [Double]) { self.runs = runs }

    var median: Double {
        let sorted = runs.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
    var min: Double { runs.min() ?? .nan }
    var max: Double { runs.max() ?? .nan }
}

/// Latency samples of one measurement, in milliseconds.
struct LatencySamples: Sendable {
    private(set) var milliseconds: [Double] = []

    mutating func append(_ duration: Duration) { milliseconds.append(duration.milliseconds) }
    mutating func append(contentsOf other: LatencySamples) { milliseconds.append(contentsOf: other.milliseconds) }

    /// The sample at quantile `q` (nearest rank) of the samples so far.
    func percentile(_ q: Double) -> Double { Self.percentile(milliseconds.sorted(), q) }

    static func percentile(_ sorted: [Double], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((Double(sorted.count) * q).rounded(.up)) - 1
        return sorted[Swift.max(0, Swift.min(sorted.count - 1, rank))]
    }

    /// The distribution as (quantile, ms) points for the chart: dense in the tail.
    var curve: [[Double]] {
        let sorted = milliseconds.sorted()
        guard !sorted.isEmpty else { return [] }
        return Self.chartQuantiles.map { [$0, Self.percentile(sorted, $0)] }
    }

    static let chartQuantiles: [Double] = {
        var points: [Double] = stride(from: 0.01, through: 0.90, by: 0.01).map { $0 }
        points += stride(from: 0.905, through: 0.99, by: 0.005).map { $0 }
        points += [0.992, 0.994, 0.996, 0.998, 0.999, 0.9995, 0.9999, 1.0]
        return points
    }()
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    var milliseconds: Double { seconds * 1000 }
}

/// A deterministic generator, so that every run loads the same board.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The process's resident set size, from /proc/self/statm.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
        let pages = Int(text.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

func measureThroughput(count: Int, _ body: () -> Void) -> Double {
    let start = ContinuousClock.now
    body()
    return Double(count) / (ContinuousClock.now - start).seconds
}
