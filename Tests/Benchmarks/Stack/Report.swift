import Foundation

/// One line of the side-by-side table.
struct Row {
    enum Better { case higher, lower }

    var measurement: String
    var unit: String
    var podium: Series?
    var referenceName: String?
    var reference: Double?
    var target: Double?
    var targetText: String?
    var better: Better = .higher

    /// Podium's median over the reference (for latencies, how many times slower Podium is).
    var ratio: Double? {
        guard let podium, let reference, reference != 0 else { return nil }
        return podium.median / reference
    }

    var met: Bool? {
        guard let target, let podium else { return nil }
        return better == .higher ? podium.median >= target : podium.median < target
    }
}

/// Formats a figure with a sensible number of digits.
func figure(_ value: Double?) -> String {
    guard let value, value.isFinite else { return "—" }
    let magnitude = abs(value)
    if magnitude >= 1000 { return String(format: "%.0f", value).groupedThousands }
    if magnitude >= 100 { return String(format: "%.0f", value) }
    if magnitude >= 10 { return String(format: "%.1f", value) }
    if magnitude >= 1 { return String(format: "%.2f", value) }
    return String(format: "%.3f", value)
}

extension String {
    var groupedThousands: String {
        let negative = hasPrefix("-")
        let digits = Array(negative ? dropFirst() : Substring(self))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return (negative ? "-" : "") + out
    }
}

struct Report {
    var rows: [Row] = []
    var notes: [String] = []

    /// The table as Markdown (also what the terminal shows).
    var markdown: String {
        var lines = [
            "| measurement | unit | Podium median [min–max] (runs) | reference | reference figure | ratio | target | met? |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for row in rows {
            let podium =
                row.podium.map { "\(figure($0.median)) [\(figure($0.min))–\(figure($0.max))] (\($0.runs.count))" }
                ?? "—"
            let ratio = row.ratio.map { String(format: "%.3g×", $0) } ?? "—"
            let met = row.met.map { $0 ? "yes" : "**no**" } ?? "—"
            lines.append(
                "| \(row.measurement) | \(row.unit) | \(podium) | \(row.referenceName ?? "—") | \(figure(row.reference)) | \(ratio) | \(row.targetText ?? "—") | \(met) |"
            )
        }
        return lines.joined(separator: "\n")
    }

    func json(machine: [String: Any], curves: [String: [[Double]]]) throws -> Data {
        let rowObjects: [[String: Any]] = rows.map { row in
            var object: [String: Any] = ["measurement": row.measurement, "unit": row.unit]
            if let podium = row.podium {
                object["podium"] = ["median": podium.median, "min": podium.min, "max": podium.max, "runs": podium.runs]
            }
            if let name = row.referenceName { object["referenceName"] = name }
            if let reference = row.reference { object["reference"] = reference }
            if let ratio = row.ratio { object["ratio"] = ratio }
            if let text = row.targetText { object["target"] = text }
            if let met = row.met { object["met"] = met }
            return object
        }
        let object: [String: Any] = ["machine": machine, "rows": rowObjects, "notes": notes, "latencyCurves": curves]
        return try JSONSerialization.data(withJSONObject: sanitized(object), options: [.prettyPrinted, .sortedKeys])
    }

    /// JSON has no NaN or infinity: they become null.
    private func sanitized(_ value: Any) -> Any {
        switch value {
        case let number as Double: return number.isFinite ? number : NSNull()
        case let array as [Any]: return array.map(sanitized)
        case let object as [String: Any]: return object.mapValues(sanitized)
        default: return value
        }
    }
}

/// A percentile plot of latency distributions, written by hand: x is the percentile on a
/// log scale of 1/(1−q) (50%, 90%, 99%, 99.9%, 99.99%), y the latency in ms on a log scale.
func latencySVG(_ curves: [(name: String, points: [[Double]])], title: String) -> String {
    let width = 1000.0
    let height = 560.0
    let left = 80.0
    let right = 330.0
    let top = 50.0
    let bottom = 60.0
    let plotWidth = width - left - right
    let plotHeight = height - top - bottom
    let xMax = 4.0
    func x(_ q: Double) -> Double { left + min(xMax, -log10(max(1e-4, 1 - q))) / xMax * plotWidth }
    let values = curves.flatMap { $0.points.map { $0[1] } }.filter { $0 > 0 && $0.isFinite }
    let low = floor(log10(values.min() ?? 0.01))
    let high = ceil(log10(values.max() ?? 10))
    let span = max(1, high - low)
    func y(_ ms: Double) -> Double { top + plotHeight - (log10(max(ms, pow(10, low))) - low) / span * plotHeight }
    let colours = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f"]
    var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(left)" y="28" font-size="16">\(title)</text>

        """
    for decade in stride(from: low, through: high, by: 1) {
        let yy = y(pow(10, decade))
        svg += "<line x1=\"\(left)\" y1=\"\(yy)\" x2=\"\(left + plotWidth)\" y2=\"\(yy)\" stroke=\"#ddd\"/>\n"
        svg += "<text x=\"\(left - 8)\" y=\"\(yy + 4)\" text-anchor=\"end\">\(figure(pow(10, decade))) ms</text>\n"
    }
    for (q, label) in [(0.0, "0%"), (0.9, "90%"), (0.99, "99%"), (0.999, "99.9%"), (0.9999, "99.99%")] {
        let xx = x(q)
        svg += "<line x1=\"\(xx)\" y1=\"\(top)\" x2=\"\(xx)\" y2=\"\(top + plotHeight)\" stroke=\"#ddd\"/>\n"
        svg += "<text x=\"\(xx)\" y=\"\(top + plotHeight + 18)\" text-anchor=\"middle\">\(label)</text>\n"
    }
    svg += "<text x=\"\(left + plotWidth / 2)\" y=\"\(height - 15)\" text-anchor=\"middle\">percentile</text>\n"
    svg +=
        "<rect x=\"\(left)\" y=\"\(top)\" width=\"\(plotWidth)\" height=\"\(plotHeight)\" fill=\"none\" stroke=\"#333\"/>\n"
    for (index, curve) in curves.enumerated() where !curve.points.isEmpty {
        let colour = colours[index % colours.count]
        let path = curve.points.filter { $0[1] > 0 }.map { String(format: "%.1f,%.1f", x($0[0]), y($0[1])) }.joined(
            separator: " ")
        svg += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\" points=\"\(path)\"/>\n"
        if curve.points.count < 6 {
            for point in curve.points {
                svg += "<circle cx=\"\(x(point[0]))\" cy=\"\(y(point[1]))\" r=\"3\" fill=\"\(colour)\"/>\n"
            }
        }
        let legendY = top + 10 + Double(index) * 20
        svg +=
            "<line x1=\"\(left + plotWidth + 15)\" y1=\"\(legendY)\" x2=\"\(left + plotWidth + 40)\" y2=\"\(legendY)\" stroke=\"\(colour)\" stroke-width=\"2\"/>\n"
        svg += "<text x=\"\(left + plotWidth + 45)\" y=\"\(legendY + 4)\">\(curve.name)</text>\n"
    }
    svg += "</svg>\n"
    return svg
}
