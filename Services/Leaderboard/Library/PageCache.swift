import PodiumMessages
import PodiumRuntime

/// Recently built pages of the all-time standings (the top 10 most of all), reused while the
/// rows they show are unchanged, so a popular page does not read the store and the name cache
/// for every request.
///
/// A page is reused only if the standings still hold exactly the same rows at the same ranks
/// (player, value and submission time): the stored details (context, metadata) belong to that
/// entry, so they cannot have changed either. Display names may be up to ``freshness`` older
/// than the name cache's own minute.
final class PageCache: Sendable {
    struct Key: Hashable, Sendable {
        let gameId: String
        let boardId: String
        let firstRank: Int
    }

    private struct Page: Sendable {
        let rows: [RankIndex.Entry]
        let entries: [LeaderboardEntry]
        let builtAt: Int64
    }

    /// How long a built page is reused at most, in milliseconds.
    static let freshness: Int64 = 1_000
    /// Pages starting below this rank are not cached (deep pages are rarely asked twice).
    static let deepestFirstRank = 200
    /// The most pages kept; when full, the cache starts over.
    static let capacity = 256

    private let pages = Locked([Key: Page]())

    /// The entries built for exactly these rows, if still fresh.
    func entries(for key: Key, rows: [RankIndex.Entry], now: Int64) -> [LeaderboardEntry]? {
        guard key.firstRank <= Self.deepestFirstRank else { return nil }
        return pages.withLock { pages in
            guard let page = pages[key], page.rows == rows, now - page.builtAt < Self.freshness, now >= page.builtAt
            else {
                return nil
            }
            return page.entries
        }
    }

    /// Keeps the entries built for these rows.
    func store(_ entries: [LeaderboardEntry], for key: Key, rows: [RankIndex.Entry], now: Int64) {
        guard key.firstRank <= Self.deepestFirstRank else { return }
        pages.withLock { pages in
            if pages.count >= Self.capacity, pages[key] == nil { pages.removeAll(keepingCapacity: true) }
            pages[key] = Page(rows: rows, entries: entries, builtAt: now)
        }
    }
}
