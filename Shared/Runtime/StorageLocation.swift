import Foundation

/// Where a service keeps its data: one SQLite database per service under the data directory.
public enum StorageLocation {
    /// `<data>/<service>.sqlite`.
    public static func database(for service: String, in dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent("\(service).sqlite")
    }

    /// Bytes a SQLite database takes on disk: the main file and its write-ahead log.
    public static func bytesOnDisk(_ path: String) -> Int {
        [path, path + "-wal"].reduce(0) { total, file in
            total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0)
        }
    }
}
