import PodiumMessages

/// Answers one request type. Throw an ``ErrorReply`` for a clear client error; any other error
/// becomes `internal_error`.
public typealias RequestHandler = @Sendable (RawEnvelope) async throws -> JSONValue

/// What makes a service this service: its name, what it listens to and what it answers.
/// The shared ``ServiceRuntime`` does the rest (bus, gateway link, health, shutdown).
public struct ServiceDefinition: Sendable {
    /// The service name; its request types start with `<name>.`.
    public var name: String
    /// Bus topic prefixes it subscribes to.
    public var subscriptions: [String]
    /// Request types it answers, beyond the built-in `<name>.health` and `<name>.test-notification`.
    public var requestHandlers: [MessageType: RequestHandler]
    /// Called for every bus message it receives (after the runtime has recorded it).
    public var onBusMessage: (@Sendable (BusDelivery) async -> Void)?

    public init(
        name: String,
        subscriptions: [String],
        requestHandlers: [MessageType: RequestHandler] = [:],
        onBusMessage: (@Sendable (BusDelivery) async -> Void)? = nil
    ) {
        self.name = name
        self.subscriptions = subscriptions
        self.requestHandlers = requestHandlers
        self.onBusMessage = onBusMessage
    }
}
