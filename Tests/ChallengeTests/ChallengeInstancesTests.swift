import Foundation
import PodiumClient
import PodiumMessages
import PodiumRuntime
import PodiumTesting
import Testing

/// Two challenge instances on one PostgreSQL database, both serving: the challenges are split by
/// id into 16 partitions, each instance creates new ones in its own partitions, applies the
/// scores to its own challenges (every score once per challenge), adds the players who join by
/// code to its own (a code entered at the other instance is handed over), and the survivor of
/// the two goes on from each partition's position.
@Suite("Challenge instances")
struct ChallengeInstancesTests {
    /// Each challenge's standings as value per player, asked until `done` holds (20 s at most);
    /// past that, the failure names what was last seen.
    static func standings(
        _ player: ChallengeFlowTests.Player, _ ids: [String],
        until done: @escaping @Sendable ([String: [String: Int64]]) -> Bool
    ) async throws -> [String: [String: Int64]] {
        let seen = LastSeen()
        do {
            return try await withDeadline(.seconds(20)) {
                while true {
                    var all: [String: [String: Int64]] = [:]
                    var refused: [String: String] = [:]
                    for id in ids {
                        let reply = try await player.client.exchange(
                            ChallengeRequests.standings, ChallengeTarget(challengeId: id), gameId: "dash")
                        guard let value = try? reply.value() else {
                            refused[id] = reply.error?.code?.rawValue ?? "undecodable"
                            continue
                        }
                        all[id] = Dictionary(uniqueKeysWithValues: value.standings.map { ($0.playerId, $0.value) })
                    }
                    seen.set("standings \(all), refused \(refused)")
                    if done(all) { return all }
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
        } catch let error as TestStackError {
            throw TestStackError("\(error.description); last seen: \(seen.value)")
        }
    }

    /// The last state a polling loop saw, for its failure message.
    final class LastSeen: @unchecked Sendable {
        private let lock = NSLock()
        private var text = "nothing"
        func set(_ value: String) { lock.withLock { text = value } }
        var value: String { lock.withLock { text } }
    }

    @Test(
        "challenges split by id over two instances: new ones in both halves, scores applied once by each owner, joins handed to the owner, the survivor going on",
        .enabled(if: PodiumTestStack.storageKind == "postgresql", "leases live in PostgreSQL"))
    func splitById() async throws {
        try await withPodiumStack(.init(instances: 2, leaseMilliseconds: 3000)) { stack in
            let instances = stack.services.filter { $0.definition.name == "challenge" }
            try await stack.waitUntilReady()
            try await stack.waitUntilSettled()
            let host = try await ChallengeFlowTests.player(stack, "host")
            let guest = try await ChallengeFlowTests.player(stack, "guest")
            let pal = try await ChallengeFlowTests.player(stack, "pal")
            let (hostId, guestId, palId) = (host.id, guest.id, pal.id)
            defer { ChallengeFlowTests.close([host, guest, pal]) }
            try await ChallengeFlowTests.befriend(host, pal)
            // Unkeyed, challenge.start goes to the two instances in turn: each draws the id in one
            // of its own partitions.
            var started: [String] = []
            for _ in 0..<6 {
                let challenge = try await host.client.call(
                    ChallengeRequests.start,
                    TimedChallengeStart(boardId: "dash.highscore", durationMilliseconds: 600_000, receivers: [palId]),
                    gameId: "dash")
                started.append(challenge.challengeId)
            }
            let ids = started
            let map = PartitionMap(partitions: 16)
            let owners = ids.map { id in instances.firstIndex { $0.ownership.serves(map.partition(of: id)) } }
            #expect(Set(owners) == [0, 1], "new challenges in both instances' partitions: \(owners)")

            // A code of each, entered by the guest: at whichever instance the join reaches, the
            // owner adds the guest.
            for id in ids {
                let invite = try await host.client.call(
                    ChallengeRequests.invite, ChallengeInviteRequest(challengeId: id), gameId: "dash")
                let joined = try await guest.client.call(
                    ChallengeRequests.join, InviteEntry(code: invite.code), gameId: "dash")
                #expect(Set(joined.receivers.map(\.playerId)) == [hostId, guestId, palId])
            }

            // One score each: every challenge counts it once, applied by its owner.
            try await ChallengeFlowTests.submit(host, 300)
            try await ChallengeFlowTests.submit(guest, 200)
            try await ChallengeFlowTests.submit(pal, 100)
            let first = try await Self.standings(host, ids) { all in
                all.count == ids.count && all.values.allSatisfy { $0 == [hostId: 300, guestId: 200, palId: 100] }
            }
            #expect(first.count == ids.count)

            // One instance stops: the other takes its partitions and goes on from their positions.
            await stack.stopService(instance: instances[0].settings.instanceID)
            try await ChallengeFlowTests.submit(guest, 500)
            let after = try await Self.standings(host, ids) { all in
                all.count == ids.count && all.values.allSatisfy { $0 == [hostId: 300, guestId: 500, palId: 100] }
            }
            #expect(after.count == ids.count)
            #expect(instances[1].ownership.served.count == 16)
        }
    }
}
