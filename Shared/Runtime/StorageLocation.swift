import Foundation

/// Where a service keeps its data: one SQLite database per service under the data directory.
public enum StorageLocation {
    /// `<data>/<service>.sqlite`.
    public static func database(for service: String, in dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent("\(service).sqlite")
    }
}
