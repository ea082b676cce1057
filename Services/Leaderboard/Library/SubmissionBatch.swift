import PodiumMessages
import PodiumRuntime

/// A batch of submissions decided in memory, for a store that writes a whole batch in a few
/// statements (PostgreSQL: one upsert of the entries, one insert of the history rows, one of the
/// receipts, one of the outbox messages) instead of a round trip per row.
///
/// The rules are those of applying the submissions one after another in one transaction: a
/// resend of a stored request (or of one earlier in the batch) replays its reply; a submission
/// sees the entry as the earlier ones of the batch left it; one refused before it wrote anything
/// fails alone. Only each entry's last state is upserted (PostgreSQL updates a row once per
/// statement); every accepted submission adds a history row.
public struct SubmissionBatch: Sendable {
    /// An entry's key.
    public struct EntryKey: Hashable, Sendable {
        public var gameId: String
        public var boardId: String
        public var playerId: String

        public init(gameId: String, boardId: String, playerId: String) {
            self.gameId = gameId
            self.boardId = boardId
            self.playerId = playerId
        }
    }

    /// A history row to insert; its id becomes the submission's version.
    public struct ScoreRow: Sendable {
        public var key: EntryKey
        public var value: Int64
        public var submittedAt: Int64
        /// The entry the submission left, nil when it kept the one before: what a store that
        /// folds its entries later (``UnfoldedEntries``) replays from the history after a crash.
        public var entry: StoredEntry?
    }

    enum Planned: Sendable {
        case applied(previous: StoredEntry?, current: StoredEntry?, journal: SubmissionJournal, scoreRow: Int)
        case replayed(JSONValue)
        case refused(ErrorReply)
    }

    private(set) var planned: [Planned] = []
    /// The entries' last states, in the order they were first changed.
    public private(set) var entries: [(key: EntryKey, entry: StoredEntry)] = []
    /// The history rows, in the batch's order.
    public private(set) var scores: [ScoreRow] = []
    /// The receipts and outbox messages to commit with them.
    public private(set) var writes = DurableWrites()

    /// The distinct entry keys of `batch`, to read their current entries in one statement.
    public static func keys(of batch: [PendingSubmission]) -> [EntryKey] {
        var seen = Set<EntryKey>()
        return batch.map(Self.key).filter { seen.insert($0).inserted }
    }

    /// The batch's request keys with their positions in the batch, to look up their receipts in
    /// one statement.
    public static func requests(of batch: [PendingSubmission]) -> [(index: Int, key: RequestKey)] {
        batch.enumerated().compactMap { index, pending in pending.request.map { (index, $0) } }
    }

    /// Decides every submission of `batch`. `storedReceipts` holds the stored fingerprint and
    /// reply by position in the batch; `current` the entries as stored. Throws what a
    /// submission's `decide` or `journal` throws other than a refusal before writing (the whole
    /// batch then fails, as it would in one transaction).
    public init(
        _ batch: [PendingSubmission], storedReceipts: [Int: (fingerprint: String, reply: JSONValue)],
        current: [EntryKey: StoredEntry]
    ) throws {
        var current = current
        var entryIndex: [EntryKey: Int] = [:]
        var receiptIndex: [ReceiptKey: Int] = [:]
        planned.reserveCapacity(batch.count)
        for (index, pending) in batch.enumerated() {
            if let request = pending.request {
                let stored =
                    storedReceipts[index]
                    ?? receiptIndex[ReceiptKey(request)].map {
                        (writes.receipts[$0].key.fingerprint, writes.receipts[$0].reply)
                    }
                if let stored {
                    do {
                        planned.append(
                            .replayed(
                                try RequestReceipts.replay(
                                    request, storedFingerprint: stored.0, storedReply: stored.1)))
                    } catch let refusal as ErrorReply {
                        planned.append(.refused(refusal))
                    }
                    continue
                }
            }
            let key = Self.key(pending)
            let previous = current[key]
            let decided: StoredEntry?
            do {
                decided = try pending.decide(previous)
            } catch let refusal as ErrorReply {
                planned.append(.refused(refusal))
                continue
            }
            if let decided {
                current[key] = decided
                if let at = entryIndex[key] {
                    entries[at].entry = decided
                } else {
                    entryIndex[key] = entries.count
                    entries.append((key, decided))
                }
            }
            scores.append(ScoreRow(key: key, value: pending.value, submittedAt: pending.submittedAt, entry: decided))
            let journal = try pending.journal(previous, decided ?? previous)
            if let request = pending.request {
                receiptIndex[ReceiptKey(request)] = writes.receipts.count
            }
            writes.recordReceipt(pending.request, reply: journal.reply, at: pending.submittedAt)
            if let message = journal.acceptedForOutbox {
                try writes.appendToOutbox(message, on: journal.accepted.topic)
            } else {
                try writes.appendToOutbox(journal.accepted.envelope, on: journal.accepted.topic)
            }
            planned.append(
                .applied(
                    previous: previous, current: decided ?? previous, journal: journal, scoreRow: scores.count - 1))
        }
    }

    /// Each submission's outcome, given the ids the history rows got (one per ``scores`` row, in order).
    public func outcomes(versions: [Int64]) -> [Result<SubmissionOutcome, ErrorReply>] {
        precondition(versions.count == scores.count, "one id per history row")
        return planned.map { planned in
            switch planned {
            case .applied(let previous, let current, let journal, let row):
                .success(.applied(previous: previous, current: current, version: versions[row], journal: journal))
            case .replayed(let reply): .success(.replayed(reply))
            case .refused(let refusal): .failure(refusal)
            }
        }
    }

    private static func key(_ pending: PendingSubmission) -> EntryKey {
        EntryKey(gameId: pending.gameId, boardId: pending.boardId, playerId: pending.playerId)
    }

    private struct ReceiptKey: Hashable {
        var scope: String
        var requestId: String

        init(_ key: RequestKey) {
            scope = key.scope
            requestId = key.requestId
        }
    }
}
