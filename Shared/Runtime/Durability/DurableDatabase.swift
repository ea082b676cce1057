import Foundation
import GRDB

/// Opens a service's SQLite database the way acknowledged data needs it: WAL mode (GRDB's
/// pool) with `synchronous=FULL`, so a commit is on disk (fsync) before the service replies,
/// and a busy timeout so a reader never fails a writer.
public enum DurableDatabase {
    public static func open(at path: URL) throws -> DatabasePool {
        try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        return try DatabasePool(path: path.path, configuration: configuration)
    }
}
