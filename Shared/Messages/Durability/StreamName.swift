/// The durable streams on the bus. Each is a publisher id whose sequence numbers never restart:
/// a message's sequence is its position in a log on disk, so a subscriber that missed some can
/// read them again (the ZeroMQ Guide's Clone pattern).
///
/// - `events`: the gateway's event log (every acknowledged `event.publish`).
/// - `leaderboard`: the leaderboard service's outbox (`leaderboard.score-accepted`).
/// - `achievement`: the achievement service's outbox (`achievement.earned`).
/// - `auth`: the auth service's outbox (`auth.friend-requested`, `auth.friend-accepted` on
///   `friend/…` topics, `auth.account-deleted` on `friend/deleted/…`: one family). Its publisher id, `auth`, is not the auth service's live one (the
///   instance id, on the `auth/…` revocation family the gateway tracks), and its family is
///   `friend`, so the two sequences never mix.
public enum StreamName {
    /// The gateway's event log.
    public static let events = "events"
    /// The leaderboard service's outbox.
    public static let leaderboard = "leaderboard"
    /// The achievement service's outbox.
    public static let achievement = "achievement"
    /// The auth service's outbox (friend requests).
    public static let auth = "auth"

    /// Where a consumer group member records its position in `stream` for one partition of its
    /// data (`events@3`): each partition's position moves with the messages applied for it, so
    /// the instance that takes the partition over goes on exactly from there.
    public static func partition(_ stream: String, _ partition: Int) -> String { "\(stream)@\(partition)" }

    /// Several partitions of a stream applied together in one transaction (a consumer group that
    /// applies every message in each partition, ``partition(_:_:)`` of each): `leaderboard@0,3,5`.
    public static func group(_ stream: String, _ partitions: [Int]) -> String {
        "\(stream)@" + partitions.sorted().map(String.init).joined(separator: ",")
    }

    /// The names a stream name's position is recorded under: each partition's for a group
    /// (``group(_:_:)``), else the name itself.
    public static func positionNames(of name: String) -> [String] {
        let (base, group) = partitions(of: name)
        return group.map { $0.map { partition(base, $0) } } ?? [name]
    }

    /// A stream name's base stream and the partitions it names (nil: the whole stream).
    public static func partitions(of name: String) -> (stream: String, partitions: [Int]?) {
        guard let at = name.lastIndex(of: "@") else { return (name, nil) }
        let numbers = name[name.index(after: at)...].split(separator: ",").compactMap { Int($0) }
        return numbers.isEmpty ? (name, nil) : (String(name[..<at]), numbers)
    }

    /// The services that follow a stream (their `follows`): retention never prunes a message
    /// before each of them has read past it.
    public static func readers(of stream: String) -> [String] {
        switch stream {
        case events: ["achievement", "challenge"]
        case leaderboard, achievement: ["challenge"]
        case auth: ["achievement", "challenge", "leaderboard"]
        default: []
        }
    }

    /// The request type that reads a stream's range: `events.read` for the event log,
    /// `<service>.outbox.read` for a service's outbox.
    public static func readType(of stream: String) -> MessageType { read(of: stream).type }

    /// The request that reads a stream's range (``readType(of:)``), typed.
    public static func read(of stream: String) -> RequestDefinition<StreamRead, StreamPage> {
        stream == events ? GatewayRequests.eventsRead : ServiceRequests.outboxRead(of: stream)
    }
}
