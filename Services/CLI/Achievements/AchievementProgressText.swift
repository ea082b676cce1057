import Foundation

/// How achievement progress is written for people: `[#####-----]  50%  5/10`, as three table
/// columns so that they line up.
enum AchievementProgressText {
    /// Cells in the bar.
    static let barWidth = 10

    /// The bar (full only at 100 percent), the percentage and the steps (empty when unknown).
    static func columns(percent: Double, steps: Int64?, target: Int64?) -> [String] {
        let clamped = percent.isFinite ? min(100, max(0, percent)) : 0
        let filled = clamped >= 100 ? barWidth : min(barWidth - 1, Int(clamped * Double(barWidth) / 100))
        let bar = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled) + "]"
        let stepsText = steps.flatMap { steps in target.map { "\(steps)/\($0)" } } ?? ""
        return [bar, self.percent(clamped), stepsText]
    }

    /// A whole percentage as `50%`, otherwise rounded down to a tenth (`66.6%`), so that
    /// anything short of completion never reads as 100%.
    static func percent(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        if value == value.rounded(.down) { return "\(Int(value))%" }
        return String(format: "%.1f%%", (value * 10).rounded(.down) / 10)
    }
}

/// Columns of text, each as wide as its widest cell, separated by two spaces.
struct TextTable {
    enum Alignment {
        case left
        case right
    }

    var alignments: [Alignment]
    var rows: [[String]] = []

    init(_ alignments: [Alignment]) { self.alignments = alignments }

    mutating func append(_ row: [String]) { rows.append(row) }

    var text: String {
        var widths = Array(repeating: 0, count: alignments.count)
        for row in rows {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], cell.count)
            }
        }
        return rows.map { row in
            row.enumerated().map { column, cell in
                guard column < widths.count else { return cell }
                return alignments[column] == .right
                    ? cell.leftPadded(to: widths[column]) : cell.rightPadded(to: widths[column])
            }
            .joined(separator: "  ")
            .trimmingTrailingSpaces()
        }
        .joined(separator: "\n")
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
    func rightPadded(to width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
