import Foundation

/// Writes the PostgreSQL run's rows (`--postgres`) beside the SQLite run's (`--compare`, that
/// run's summary.json): the same measurement, with SQLite as the reference, so the ratio says
/// what PostgreSQL costs (for latencies, how many times slower).
func writeBackendComparison(_ report: Report, options: BenchOptions, startedAt: Date) throws {
    var sqlite: [String: Double] = [:]
    if let path = options.compare, let data = FileManager.default.contents(atPath: path),
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
        let rows = object["rows"] as? [[String: Any]]
    {
        for row in rows {
            if let name = row["measurement"] as? String, let podium = row["podium"] as? [String: Any],
                let median = podium["median"] as? Double
            {
                sqlite[name] = median
            }
        }
    }
    var compared = Report()
    for row in report.rows {
        let reference = sqlite[row.measurement]
        compared.rows.append(
            Row(
                measurement: "PostgreSQL: \(row.measurement)", unit: row.unit, podium: row.podium,
                referenceName: reference == nil ? nil : "same on SQLite", reference: reference, better: row.better))
    }
    compared.notes.append(
        "Every store of the in-process stack in one local PostgreSQL 15 database (schemas of their own, pools of 8, "
            + "synchronous_commit on), \(figure(Double(options.entries))) entries preloaded; the reference is the same row of the SQLite run just before."
    )
    print("")
    print(compared.markdown)
    try FileManager.default.createDirectory(atPath: options.resultsDirectory, withIntermediateDirectories: true)
    try compared.json(machine: machineDescription(startedAt: startedAt, options: options), curves: [:])
        .write(to: URL(fileURLWithPath: "\(options.resultsDirectory)/summary.json"))
    try (compared.markdown + "\n\n" + compared.notes.map { "* \($0)" }.joined(separator: "\n") + "\n")
        .write(toFile: "\(options.resultsDirectory)/summary.md", atomically: true, encoding: .utf8)
    print("wrote \(options.resultsDirectory)/summary.json, summary.md")
}
