import PodiumMessages
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

    @Test(
        "behind its limit the queue refuses at once with overloaded and queues nothing; what was queued still completes"
    )
    func refusesPastTheBacklogLimit() async throws {
        let (gate, opener) = AsyncStream<Void>.makeStream()
        let (started, starter) = AsyncStream<Void>.makeStream()
        let log = Log()
        let commit = GroupCommit<Int, String>(maximumBatch: 4, service: "test", queue: "numbers") { batch in
            log.batches.withLock { $0.append(batch) }
            if batch == [0] {
                starter.yield()
                for await _ in gate { break }  // the database is stuck on the first batch
            }
            return batch.map { "done \($0)" }
        }
        let limit = BacklogLimit(maximumWaiting: 8, maximumWaitMilliseconds: 60_000)
        try await withThrowingTaskGroup(of: String.self) { group in
            group.addTask { try await commit.submit(0, within: limit) }
            for await _ in started { break }
            for item in 1...8 { group.addTask { try await commit.submit(item, within: limit) } }
            while commit.waiting < 8 { await Task.yield() }
            do {
                _ = try await commit.submit(99, within: limit)
                Issue.record("a ninth waiting item was queued")
            } catch let error as ErrorReply {
                #expect(error.code == .overloaded)
                #expect(error.retryAfterMilliseconds == 50)
            }
            #expect(commit.waiting == 8, "the refused item was not queued")
            opener.yield()
            var outcomes: [String] = []
            for try await outcome in group { outcomes.append(outcome) }
            #expect(outcomes.count == 9)
        }
        #expect(!log.batches.value.flatMap { $0 }.contains(99))
    }
}
