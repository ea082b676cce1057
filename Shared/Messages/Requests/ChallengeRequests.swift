/// The challenge service's requests (docs/PROTOCOL.md 12).
public enum ChallengeRequests {
    public static let issue = RequestDefinition<ChallengeIssue, ChallengeDetail>(
        "challenge.issue", access: .signedIn, keepsReceipt: true)
    public static let start = RequestDefinition<TimedChallengeStart, ChallengeDetail>(
        "challenge.start", access: .signedIn, keepsReceipt: true)
    public static let rematch = RequestDefinition<ChallengeTarget, ChallengeDetail>(
        "challenge.rematch", access: .signedIn, changesState: true)
    public static let decline = RequestDefinition<ChallengeTarget, ChallengeDetail>(
        "challenge.decline", access: .signedIn, changesState: true)
    public static let received = RequestDefinition<ChallengeFilter, ChallengeList>(
        "challenge.received", access: .signedIn)
    public static let issued = RequestDefinition<ChallengeFilter, ChallengeList>(
        "challenge.issued", access: .signedIn)
    public static let detail = RequestDefinition<ChallengeTarget, ChallengeDetail>(
        "challenge.detail", access: .signedIn)
    public static let candidates = RequestDefinition<EmptyPayload, ChallengeCandidates>(
        "challenge.candidates", access: .signedIn)
    public static let inbox = RequestDefinition<InboxQuery, InboxPage>(
        "challenge.inbox", access: .signedIn)
    public static let inboxRead = RequestDefinition<InboxMarkRead, InboxMarked>(
        "challenge.inbox.read", access: .signedIn, changesState: true)

    /// The challenges the studio defines for the game (released ones, for players).
    public static let definitions = RequestDefinition<EmptyPayload, ChallengeDefinitionList>(
        "challenge.definitions", access: .signedIn)
    /// The live order of a time-boxed challenge the player takes part in.
    public static let standings = RequestDefinition<ChallengeTarget, ChallengeStandingsReply>(
        "challenge.standings", access: .signedIn)
    /// An invite code for a running time-boxed challenge the player takes part in.
    public static let invite = RequestDefinition<ChallengeInviteRequest, Invite>(
        "challenge.invite", access: .signedIn, changesState: true)
    /// Joins the time-boxed challenge of an invite code.
    public static let join = RequestDefinition<InviteEntry, ChallengeDetail>(
        "challenge.join", access: .signedIn, changesState: true)
    /// A `challenge.join` whose code was resolved by an instance that does not own the challenge,
    /// handed to the one that does (services only; routed by the challenge's partition).
    public static let joinChallenge = RequestDefinition<ChallengeJoin, ChallengeDetail>(
        "challenge.join-challenge", access: .service, changesState: true)

    // The notification inbox of every kind (docs/PROTOCOL.md 14.5); the challenge service keeps it.
    public static let inboxList = RequestDefinition<InboxListQuery, InboxList>(
        "inbox.list", access: .signedIn)
    public static let inboxUnread = RequestDefinition<EmptyPayload, InboxUnread>(
        "inbox.unread", access: .signedIn)
    public static let inboxMarkRead = RequestDefinition<InboxSelection, InboxMarked>(
        "inbox.read", access: .signedIn, changesState: true)
    public static let inboxDelete = RequestDefinition<InboxSelection, InboxDeleted>(
        "inbox.delete", access: .signedIn, changesState: true)
    public static let inboxNotify = RequestDefinition<OperatorNotice, InboxItem>(
        "inbox.admin.notify", access: .operator, changesState: true)

    // Operators.
    public static let list = RequestDefinition<ChallengeListing, ChallengeList>(
        "challenge.admin.list", access: .operator)
    public static let end = RequestDefinition<ChallengeTarget, ChallengeDetail>(
        "challenge.admin.end", access: .operator, changesState: true)
    /// Adds or replaces a challenge definition of the game (kept, and preferred to the game file's).
    public static let define = RequestDefinition<ChallengeDefinitionChange, ChallengeDefinitionChange>(
        "challenge.admin.define", access: .operator, changesState: true)
    /// Removes a challenge definition of the game (a game file's one stays removed).
    public static let remove = RequestDefinition<ChallengeDefinitionTarget, ChallengeDefinitionRemoval>(
        "challenge.admin.remove", access: .operator, changesState: true)

    /// Every challenge request type.
    /// The service's part of a player's export (`account.export`), asked by the gateway.
    public static let export = RequestDefinition<ExportTarget, ChallengeExport>("challenge.export", access: .service)

    public static let all: [RequestInfo] = [
        issue.info, start.info, rematch.info, decline.info, received.info, issued.info, detail.info,
        candidates.info, definitions.info, standings.info, invite.info, join.info, joinChallenge.info,
        inbox.info, inboxRead.info, inboxList.info, inboxUnread.info, inboxMarkRead.info, inboxDelete.info,
        inboxNotify.info,
        list.info, end.info, define.info, remove.info, export.info,
    ]
}
