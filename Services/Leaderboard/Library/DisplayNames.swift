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
        guard let answer = try? await context.call(AuthRequests.players, ProfileLookup(playerIds: missing))
        else { return found }
        cache.withLock { cache in
            if cache.count > Self.capacity { cache.removeAll() }
            for id in missing { cache[id] = Cached(name: nil, fetchedAt: now) }
            for profile in answer.players {
                cache[profile.playerId] = Cached(name: profile.displayName, fetchedAt: now)
                found[profile.playerId] = profile.displayName
            }
        }
        return found
    }
}
