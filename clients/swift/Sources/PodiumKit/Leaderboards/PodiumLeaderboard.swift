import Foundation

/// One of the game's boards, shaped like GameKit's `GKLeaderboard`: load them with
/// ``loadLeaderboards(IDs:for:)``, then submit and read through the instance.
///
/// A board value reads either the current standings or, for a recurring board, one ended
/// occurrence (``loadPreviousOccurrence()``, ``occurrence(_:)``), or one archive an operator's
/// reset kept (``archive(_:)``), as ``standings`` says.
public struct PodiumLeaderboard: Sendable {
    /// Whose entries (GameKit's `GKLeaderboard.PlayerScope`).
    public enum PlayerScope: Sendable, Equatable {
        case global
        /// The local player and their friends, ranked among themselves.
        case friendsOnly
    }

    /// Which time window (GameKit's `GKLeaderboard.TimeScope`): the current UTC day, ISO week, or all time.
    public enum TimeScope: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
        case today
        case week
        case allTime

        public var description: String { rawValue }
    }

    /// GameKit's `GKLeaderboard.LeaderboardType`.
    public enum LeaderboardType: Sendable, Equatable {
        case classic
        /// Standings that start empty every period (``recurrence``).
        case recurring
    }

    public enum SortOrder: String, Sendable, Codable {
        case higherIsBetter
        case lowerIsBetter
    }

    /// What a new score does to the player's entry.
    public enum SubmitOperator: String, Sendable, Codable {
        case best
        case latest
        case increment
    }

    /// How a value is shown; unknown formats keep their raw value.
    public struct Format: RawRepresentable, Sendable, Hashable, Codable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        public static let integer = Format(rawValue: "integer")
        /// Milliseconds: 61234 is `1:01.234`.
        public static let timeMilliseconds = Format(rawValue: "timeMilliseconds")
        /// Millionths of a currency unit.
        public static let currencyMicros = Format(rawValue: "currencyMicros")
    }

    /// The periods of a recurring board: the first starts at ``startDate``, each lasts ``duration``.
    public struct Recurrence: Sendable, Equatable {
        public var startDate: Date
        public var duration: Duration

        /// The period running at `date` (0 is the first); nil before the first.
        public func period(at date: Date) -> Int64? {
            let elapsed = date.milliseconds - startDate.milliseconds
            let length = duration.milliseconds
            guard elapsed >= 0, length > 0 else { return nil }
            return elapsed / length
        }

        /// When period `period` starts.
        public func start(of period: Int64) -> Date {
            Date(milliseconds: startDate.milliseconds + period * duration.milliseconds)
        }
    }

    /// Which standings a board value reads.
    public enum Standings: Sendable, Equatable {
        /// The live standings (of the current period, for a recurring board).
        case current
        /// An ended period of a recurring board, 0 being the first.
        case occurrence(Int64)
        /// The standings an operator's reset archived, 1 being the first.
        case archive(Int64)
    }

    /// The board's id (GameKit's `baseLeaderboardID`).
    public let baseLeaderboardID: String
    public let title: String
    public let sortOrder: SortOrder
    public let submitOperator: SubmitOperator
    public let format: Format
    public let minimum: Int64?
    public let maximum: Int64?
    /// Only the game's server may submit.
    public let serverOnly: Bool
    public let recurrence: Recurrence?
    public let standings: Standings
    /// The player who loaded the board: the one who submits and whose entries are read.
    public let player: PodiumLocalPlayer

    /// The board's id.
    public var id: String { baseLeaderboardID }

    public var type: LeaderboardType { recurrence == nil ? .classic : .recurring }

    /// A recurring board's occurrence: the start of the one this value reads (the current one
    /// for ``Standings/current``); nil for a classic board.
    public var startDate: Date? {
        guard let recurrence else { return nil }
        switch standings {
        case .occurrence(let period): return recurrence.start(of: period)
        case .current, .archive: return recurrence.period(at: Date()).map(recurrence.start(of:))
        }
    }

    /// When the occurrence after ``startDate`` starts.
    public var nextStartDate: Date? {
        guard let recurrence, let startDate else { return nil }
        return startDate.addingTimeInterval(Double(recurrence.duration.milliseconds) / 1000)
    }

    /// A recurring board's period length, in seconds (GameKit's `duration`).
    public var duration: TimeInterval? { recurrence.map { Double($0.duration.milliseconds) / 1000 } }

    /// A board known by id, without loading its definition (its title is the id): enough to submit and read.
    public init(id: String, for player: PodiumLocalPlayer) {
        self.init(
            definition: Definition(
                id: id, title: id, sortOrder: .higherIsBetter, submitOperator: .best, format: .integer, minimum: nil,
                maximum: nil, serverOnly: false, recurrence: nil),
            standings: .current, player: player)
    }

    init(definition: Definition, standings: Standings, player: PodiumLocalPlayer) {
        baseLeaderboardID = definition.id
        title = definition.title
        sortOrder = definition.sortOrder
        submitOperator = definition.submitOperator
        format = definition.format
        minimum = definition.minimum
        maximum = definition.maximum
        serverOnly = definition.serverOnly
        recurrence = definition.recurrence.map {
            Recurrence(startDate: Date(milliseconds: $0.startsAt), duration: .milliseconds($0.durationMilliseconds))
        }
        self.standings = standings
        self.player = player
    }

    private init(copying board: PodiumLeaderboard, standings: Standings) {
        baseLeaderboardID = board.baseLeaderboardID
        title = board.title
        sortOrder = board.sortOrder
        submitOperator = board.submitOperator
        format = board.format
        minimum = board.minimum
        maximum = board.maximum
        serverOnly = board.serverOnly
        recurrence = board.recurrence
        self.standings = standings
        player = board.player
    }

    /// The board's definition as `leaderboard.boards` sends it (docs/PROTOCOL.md 10.6).
    struct Definition: Decodable {
        struct RecurrenceDefinition: Decodable {
            var startsAt: Int64
            var durationMilliseconds: Int64
        }
        var id: String
        var title: String
        var sortOrder: SortOrder
        var submitOperator: SubmitOperator
        var format: Format
        var minimum: Int64?
        var maximum: Int64?
        var serverOnly: Bool
        var recurrence: RecurrenceDefinition?
    }

    // MARK: - Loading boards

    // The label `IDs` is GameKit's, so that a call moves over as it is.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    /// The game's boards (GameKit's `loadLeaderboards(IDs:)`): those named, in that order (ids the
    /// game does not have are left out), or all of them in the game's order when `IDs` is nil.
    public static func loadLeaderboards(IDs ids: [String]? = nil, for player: PodiumLocalPlayer) async throws
        -> [PodiumLeaderboard]
    {
        struct List: Decodable { var leaderboards: [Definition] }
        let all = try await player.client.send(.game(player.gameId, get: "leaderboards"), as: List.self).leaderboards
            .map { PodiumLeaderboard(definition: $0, standings: .current, player: player) }
        guard let ids else { return all }
        return ids.compactMap { id in all.first { $0.baseLeaderboardID == id } }
    }

    /// The game's sets of boards (GameKit's leaderboard sets): id, title and the boards' ids.
    public static func loadLeaderboardSets(for player: PodiumLocalPlayer) async throws -> [PodiumLeaderboardSet] {
        struct List: Decodable { var leaderboardSets: [PodiumLeaderboardSet] }
        return try await player.client.send(.game(player.gameId, get: "leaderboard-sets"), as: List.self)
            .leaderboardSets
    }

    // MARK: - Occurrences and archives

    /// The occurrence before the one running now (GameKit's `loadPreviousOccurrence`); nil for a
    /// classic board or during the first period. Computed from the board's periods and this
    /// device's clock.
    public func loadPreviousOccurrence() async throws -> PodiumLeaderboard? {
        guard let recurrence else { return nil }
        let current: Int64?
        switch standings {
        case .occurrence(let period): current = period
        case .current, .archive: current = recurrence.period(at: Date())
        }
        guard let current, current > 0 else { return nil }
        return occurrence(current - 1)
    }

    /// Ended period `period` of a recurring board (0 is the first).
    public func occurrence(_ period: Int64) -> PodiumLeaderboard {
        PodiumLeaderboard(copying: self, standings: .occurrence(period))
    }

    /// The standings that an operator's reset archived as number `number` (docs/PROTOCOL.md 22.4).
    public func archive(_ number: Int64) -> PodiumLeaderboard {
        PodiumLeaderboard(copying: self, standings: .archive(number))
    }

    /// The board's archives, newest first.
    public func loadArchives() async throws -> [Archive] {
        struct List: Decodable { var archives: [Archive] }
        return try await player.client.send(
            .game(player.gameId, get: "leaderboards", baseLeaderboardID, "archives"), as: List.self
        ).archives
    }

    /// One archive: the standings a reset ended.
    public struct Archive: Sendable, Equatable, Decodable {
        /// 1, 2, 3… per board.
        public var number: Int64
        public var resetDate: Date
        /// The entries it holds.
        public var entryCount: Int

        private enum CodingKeys: String, CodingKey { case archive, resetAt, entries }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            number = try container.decode(Int64.self, forKey: .archive)
            resetDate = Date(milliseconds: try container.decode(Int64.self, forKey: .resetAt))
            entryCount = try container.decode(Int.self, forKey: .entries)
        }
    }

    // MARK: - Showing values

    /// The value as the board's format shows it: `1:01.234` for 61234 ms, `12.50` for 12500000 micros.
    public func formattedScore(_ value: Int64) -> String {
        switch format {
        case .timeMilliseconds:
            let sign = value < 0 ? "-" : ""
            let total = value.magnitude
            let minutes = total / 60_000
            let seconds = (total / 1000) % 60
            let millis = total % 1000
            let fraction = String(millis).leftPadded(to: 3)
            if minutes > 0 { return "\(sign)\(minutes):\(String(seconds).leftPadded(to: 2)).\(fraction)" }
            return "\(sign)\(seconds).\(fraction)"
        case .currencyMicros:
            let sign = value < 0 ? "-" : ""
            let cents = (value.magnitude + 5000) / 10000
            return "\(sign)\(cents / 100).\(String(cents % 100).leftPadded(to: 2))"
        default:
            return String(value)
        }
    }
}

/// A named group of boards (docs/PROTOCOL.md 10.6).
public struct PodiumLeaderboardSet: Sendable, Equatable, Decodable {
    public var id: String
    public var title: String
    public var leaderboardIds: [String]
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
