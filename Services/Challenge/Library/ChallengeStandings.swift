import PodiumMessages

/// The order of a time-boxed challenge's participants: those with a value, best first by the
/// board's sort order, ranks 1, 2, 3… (ties keep the earlier `completedAt` first, then the
/// player id, so that the order is the same whoever asks).
enum ChallengeStandings {
    static func ranked(_ receivers: [ChallengeReceiver], higherIsBetter: Bool) -> [ChallengeStanding] {
        receivers.filter { $0.value != nil }
            .sorted { a, b in
                let (x, y) = (a.value ?? 0, b.value ?? 0)
                if x != y { return higherIsBetter ? x > y : x < y }
                if (a.completedAt ?? 0) != (b.completedAt ?? 0) { return (a.completedAt ?? 0) < (b.completedAt ?? 0) }
                return a.playerId < b.playerId
            }
            .enumerated()
            .map {
                ChallengeStanding(
                    rank: $0.offset + 1, playerId: $0.element.playerId, value: $0.element.value ?? 0,
                    attempts: $0.element.attempts)
            }
    }
}
