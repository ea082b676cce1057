/// Lines of aligned columns for the CLI's readable output: a header row, then one row per item,
/// each column as wide as its widest cell, two spaces apart. A column of numbers is
/// right-aligned, header included; empty cells and `-` (nothing to show) do not keep it from
/// being one, as long as it holds at least one number.
enum TextColumns {
    static func render(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in
            all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
        }
        let numeric = header.indices.map { column in
            let cells = rows.map { $0.indices.contains(column) ? $0[column] : "" }.filter { !isPlaceholder($0) }
            return !cells.isEmpty && cells.allSatisfy(isNumber)
        }
        return all.map { row in
            header.indices.map { column in
                let cell = row.indices.contains(column) ? row[column] : ""
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return numeric[column] ? pad + cell : cell + pad
            }
            .joined(separator: "  ")
            .trimmingTrailingSpaces()
        }
        .joined(separator: "\n")
    }

    private static func isPlaceholder(_ cell: String) -> Bool { cell.isEmpty || cell == "-" }

    private static func isNumber(_ cell: String) -> Bool { Int64(cell.filter { $0 != "," }) != nil }
}
