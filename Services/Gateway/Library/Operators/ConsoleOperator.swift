import PodiumMessages

/// The operator a console page acts for, while it runs a request through the pipeline with the
/// admin key: the pipeline refuses what the operator's role does not permit
/// (``OperatorPermissions``) and the audit log names the operator (`operator:<name>`) instead
/// of the key. Set only by the console, in process; no request from a client can set it.
struct ConsoleOperator: Sendable, Equatable {
    let name: String
    let role: OperatorRole
    /// The account as it was at login (``Operators/stamp(_:)``): a change ends the session.
    var stamp: String = ""

    /// The operator of the request running now, if the console runs it for one.
    @TaskLocal static var current: ConsoleOperator?

    /// How the audit log names the operator.
    var actor: String { "operator:\(name)" }
}
