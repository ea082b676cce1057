import PodiumMessages
import PodiumRuntime

/// Players' display names, asked of the auth service and kept for a minute, so that a page of a
/// leaderboard does not cost a round trip to auth every time.
final class DisplayNames: Sendable {
    private struct Cached: Sendable {
        /// nil: auth knows no such player (remembered too, so unknown ids do not cost a round trip each time).
        let name: String?
        let fetchedAt: Int64
    }

    private let cache = Locked([String: Cached]())
    /// How long a name is reused, on the monotonic clock.
    static let lifetimeMilliseconds: Int64 = 60_000
    static let capacity = 200_000
    /// The most ids one `auth.players` question may hold.
    static let lookupLimit = 200

    /// Lookups waiting for auth: the ids many requests miss at once go in one question (or a few),
    /// not one round trip each; those that come while a question is out form the next one.
    private let lookups: GroupCommit<Lookup, [String: String]?>

    private struct Lookup: Sendable {
        let playerIds: [String]
        let context: ServiceContext
    }

    init() {
        lookups = GroupCommit(maximumBatch: 256, service: "leaderboard", queue: "display-names") { batch in
            guard let context = batch.first?.context else { return [] }
            var wanted: [String] = []
            var seen = Set<String>()
            for lookup in batch { for id in lookup.playerIds where seen.insert(id).inserted { wanted.append(id) } }
            var names: [String: String] = [:]
            var start = 0
            while start < wanted.count {
                let chunk = Array(wanted[start..<min(wanted.count, start + Self.lookupLimit)])
                start += chunk.count
                // If auth cannot answer, every lookup of the batch goes without names.
                guard let answer = try? await context.call(AuthRequests.players, ProfileLookup(playerIds: chunk)) else {
                    return batch.map { _ in nil }
                }
                for profile in answer.players { names[profile.playerId] = profile.displayName }
            }
            return batch.map { _ in names }
        }
    }

    /// Names for the ids; players auth does not know, or all of them if auth cannot answer, are left out.
    func names(for playerIds: [String], context: ServiceContext) async -> [String: String] {
        let now = context.clock.monotonicMilliseconds
        var found: [String: String] = [:]
        var missing: [String] = []
        cache.withLock { cache in
            for id in playerIds {
                if let hit = cache[id], now - hit.fetchedAt < Self.lifetimeMilliseconds {
                    if let name = hit.name { found[id] = name }
                } else {
                    missing.append(id)
                }
            }
        }
        guard !missing.isEmpty else { return found }
        guard let answered = await lookups.submit(Lookup(playerIds: missing, context: context)) else { return found }
        cache.withLock { cache in
            if cache.count > Self.capacity { cache.removeAll() }
            for id in missing {
                let name = answered[id]
                cache[id] = Cached(name: name, fetchedAt: now)
                if let name { found[id] = name }
            }
        }
        return found
    }
}
