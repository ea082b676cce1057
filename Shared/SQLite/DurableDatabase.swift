import Foundation
import GRDB

/// Opens a service's SQLite database the way acknowledged data needs it: WAL mode (GRDB's
/// pool) with `synchronous=FULL`, so a commit is on disk (fsync) before the service replies,
/// and a busy timeout so a reader never fails a writer. The writer keeps up to
/// ``writerCacheKibibytes`` of pages in memory: with a million entries the indexes a write touches
/// are larger than SQLite's default 2 MiB cache, and every miss is a read from the file.
public enum DurableDatabase {
    /// The writer connection's page cache (SQLite's `cache_size`, grown only as pages are used).
    public static let writerCacheKibibytes = 131_072

    public static func open(at path: URL) throws -> DatabasePool {
        try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Readers read what the writer wrote recently, mostly from the OS's cache; only the
            // writer's cache grows (the memory per entry of a loaded board stays that of its readers).
            if !db.configuration.readonly {
                try db.execute(sql: "PRAGMA cache_size = -\(writerCacheKibibytes)")
            }
        }
        let pool = try DatabasePool(path: path.path, configuration: configuration)
        try probeWrite(pool, path: path)
        return pool
    }

    /// Writes one row, so that a database that opens but cannot be written (a read-only disk
    /// that still holds the WAL files of an earlier run) stops the process at start instead of
    /// serving as if healthy and refusing every write.
    private static func probeWrite(_ pool: DatabasePool, path: URL) throws {
        do {
            try pool.write { db in
                // Counts the opens: a real write, without needing a clock.
                try db.execute(
                    sql: "CREATE TABLE IF NOT EXISTS podium_opened (id INTEGER PRIMARY KEY, opens INTEGER NOT NULL)")
                try db.execute(
                    sql:
                        "INSERT INTO podium_opened (id, opens) VALUES (1, 1) ON CONFLICT(id) DO UPDATE SET opens = opens + 1"
                )
            }
        } catch {
            throw DatabaseNotWritable(path: path.path, cause: "\(error)")
        }
    }
}

/// The database opened but a write failed: the disk is read-only, full or failing.
public struct DatabaseNotWritable: Error, CustomStringConvertible {
    public var path: String
    public var cause: String
    public var description: String { "cannot write \(path): \(cause)" }
}
