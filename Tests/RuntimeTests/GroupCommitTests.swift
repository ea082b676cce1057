import PodiumRuntime
import Testing

@Suite("Group commit")
struct GroupCommitTests {
    /// Batches as the writer saw them.
    final class Log: Sendable {
        let batches = Locked([[Int]]())
    }

    @Test("items queued while a batch is written form the next batch, each caller gets its own outcome, in order")
    func batchesFormWhileWriting() async throws {
        let log = Log()
        let (gate, opener) = AsyncStream<Void>.makeStream()
        let (started, starter) = AsyncStream<Void>.makeStream()
        let commit = GroupCommit<Int, String>(maximumBatch: 64, service: "test", queue: "numbers") { batch in
            log.batches.withLock { $0.append(batch) }
            if batch == [0] {
                starter.yield()
                for await _ in gate { break }  // the first batch is held until the others are queued
            }
            return batch.map { "done \($0)" }
        }
        let outcomes = await withTaskGroup(of: (Int, String).self) { group -> [Int: String] in
            group.addTask { (0, await commit.submit(0)) }
            for await _ in started { break }
            for item in 1...100 { group.addTask { (item, await commit.submit(item)) } }
            while commit.waiting < 100 { await Task.yield() }
            opener.yield()
            var outcomes: [Int: String] = [:]
            for await (item, outcome) in group { outcomes[item] = outcome }
            return outcomes
        }
        #expect(outcomes.count == 101)
        #expect(outcomes.allSatisfy { $0.value == "done \($0.key)" })
        let batches = log.batches.value
        // The held first batch, then the 100 queued meanwhile in batches of at most 64.
        #expect(batches.map(\.count) == [1, 64, 36])
        #expect(batches.flatMap { $0 }.sorted() == Array(0...100))
        #expect(commit.waiting == 0)
    }
}
