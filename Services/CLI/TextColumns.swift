/// Lines of aligned columns for the CLI's readable output: a header row, then one row per item,
/// each column as wide as its widest cell, two spaces apart. Numbers are right-aligned.
enum TextColumns {
    static func render(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        let numeric = header.indices.map { column in
            !rows.isEmpty && rows.allSatisfy { row in row.indices.contains(column) && Int64(row[column].filter { $0 != "," }) != nil }
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
}
