import Foundation

/// The reference figures measured by scripts/bench before podium-bench runs: the raw-libzmq
/// program's JSON and redis-benchmark's CSV files.
struct References {
    struct RedisFigure {
        var requestsPerSecond: Double
        var p50: Double
        var p95: Double
        var p99: Double
        var max: Double
    }

    var zmq: [String: Any] = [:]
    /// By file stem: `zrevrank-c1` (one client, no pipelining), `zrevrank-p1`, `zrevrank-p16`.
    var redis: [String: RedisFigure] = [:]
    var redisMemoryBytes: Double?
    var redisMembers: Double?

    init(zmqPath: String?, redisDirectory: String?) {
        if let zmqPath, let data = FileManager.default.contents(atPath: zmqPath),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        {
            zmq = object
        }
        guard let redisDirectory else { return }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: redisDirectory)) ?? []
        for file in files where file.hasSuffix(".csv") {
            guard let text = try? String(contentsOfFile: "\(redisDirectory)/\(file)", encoding: .utf8) else { continue }
            // "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
            let lines = text.split(whereSeparator: \.isNewline)
            guard lines.count >= 2 else { continue }
            let fields = lines[1].split(separator: ",").map {
                Double($0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
            }
            guard fields.count >= 8, let rps = fields[1], let p50 = fields[4], let p95 = fields[5], let p99 = fields[6],
                let max = fields[7]
            else { continue }
            redis[String(file.dropLast(4))] = RedisFigure(
                requestsPerSecond: rps, p50: p50, p95: p95, p99: p99, max: max)
        }
        if let text = try? String(contentsOfFile: "\(redisDirectory)/memory.txt", encoding: .utf8) {
            for line in text.split(whereSeparator: \.isNewline) {
                let parts = line.split(separator: ":")
                guard parts.count == 2, let value = Double(parts[1].trimmingCharacters(in: .whitespaces)) else {
                    continue
                }
                if parts[0] == "used_memory_rss" { redisMemoryBytes = value }
                if parts[0] == "members" { redisMembers = value }
            }
        }
    }

    func zmqSeries(_ key: String) -> Series? { (zmq[key] as? [Double]).map(Series.init) }

    var zmqCurve: [[Double]] { (zmq["roundTripCurve"] as? [[Double]]) ?? [] }
}
