import Foundation
import PodiumRuntime
import Testing

@Suite("SQLite bus checkpoint store")
struct CheckpointStoreTests {
    @Test("checkpoints survive closing and reopening the database file")
    func persistsAcrossReopen() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = StorageLocation.database(for: "leaderboard", in: directory)
        #expect(path.lastPathComponent == "leaderboard.sqlite")
        do {
            let store = try SQLiteBusCheckpointStore(path: path)
            #expect(try await store.lastApplied(publisher: "gateway-1") == nil)
            try await store.recordApplied(publisher: "gateway-1", sequence: 1, messageID: "m1", appliedAt: 10)
            try await store.recordApplied(publisher: "gateway-1", sequence: 2, messageID: "m2", appliedAt: 11)
            try await store.recordApplied(publisher: "challenge-1", sequence: 7, messageID: "m3", appliedAt: 12)
            #expect(store.location == "sqlite:\(path.path)")
        }
        #expect(FileManager.default.fileExists(atPath: path.path))
        let reopened = try SQLiteBusCheckpointStore(path: path)
        #expect(try await reopened.lastApplied(publisher: "gateway-1") == 2)
        #expect(try await reopened.lastApplied(publisher: "challenge-1") == 7)
        #expect(try await reopened.appliedCount() == 3)
    }

    @Test("a path that cannot be created is an error, not a crash")
    func unusablePath() {
        #expect(throws: (any Error).self) {
            _ = try SQLiteBusCheckpointStore(path: URL(fileURLWithPath: "/proc/podium-cannot-write/x.sqlite"))
        }
    }
}
