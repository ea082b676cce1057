/// The requests the gateway answers itself (docs/PROTOCOL.md 7).
public enum GatewayRequests {
    /// A game event to log, acknowledge and fan out; its id is an idempotency key.
    public static let publish = RequestDefinition<GameEvent, EventAcknowledgement>(
        .eventPublish, access: .signedIn, keepsReceipt: true, owner: gateway)
    /// What became of an earlier request.
    public static let receipt = RequestDefinition<ReceiptQuery, RequestReceipt>(
        .receipt, access: .signedIn, owner: gateway)
    /// A range of the event log (services catching up; operators).
    public static let eventsRead = RequestDefinition<StreamRead, StreamPage>(
        .eventsRead, access: .serviceOrOperator, owner: gateway)
    /// The topic of a player's private notifications (or, admin key, the operators').
    public static let subscribe = RequestDefinition<EmptyPayload, NotificationSubscription>(
        .notificationsSubscribe, access: .signedIn, owner: gateway)
    /// The operators' audit log.
    public static let audit = RequestDefinition<AuditQuery, AuditPage>(
        .adminAudit, access: .operator, owner: gateway)
    /// Readiness of the whole system: all anyone is told.
    public static let health = RequestDefinition<EmptyPayload, Readiness>(
        .health, access: .anyone, owner: gateway)
    /// `health` with the admin key: the gateway and every service in detail.
    public static let healthDetails = RequestDefinition<EmptyPayload, SystemHealth>(
        .health, access: .anyone, owner: gateway)
    /// Readiness of the gateway alone.
    public static let gatewayHealth = RequestDefinition<EmptyPayload, Readiness>(
        .gatewayHealth, access: .anyone, owner: gateway)
    /// `gateway.health` with the admin key: the instance and its connected services.
    public static let gatewayHealthDetails = RequestDefinition<EmptyPayload, GatewayHealth>(
        .gatewayHealth, access: .anyone, owner: gateway)

    /// Everything Podium holds about a player: the player's own, or (admin key) any player's.
    public static let exportAccount = RequestDefinition<ExportRequest, PlayerExport>(
        .accountExport, access: RequestAccess("player or operator", kinds: [.player, .admin]), owner: gateway)

    // Operator accounts (docs/PROTOCOL.md 22.11): the admin key, or an administrator's console.
    public static let createOperator = RequestDefinition<OperatorCreation, OperatorAccount>(
        "admin.operators.create", access: .operator, changesState: true, owner: gateway)
    public static let updateOperator = RequestDefinition<OperatorUpdate, OperatorAccount>(
        "admin.operators.update", access: .operator, changesState: true, owner: gateway)
    public static let listOperators = RequestDefinition<EmptyPayload, OperatorList>(
        "admin.operators.list", access: .operator, owner: gateway)
    public static let removeOperator = RequestDefinition<OperatorTarget, OperatorRemoval>(
        "admin.operators.remove", access: .operator, changesState: true, owner: gateway)
    public static let beginTOTP = RequestDefinition<OperatorTarget, TOTPEnrollment>(
        "admin.operators.totp-begin", access: .operator, changesState: true, owner: gateway)
    public static let confirmTOTP = RequestDefinition<TOTPConfirmation, OperatorAccount>(
        "admin.operators.totp-confirm", access: .operator, changesState: true, owner: gateway)
    public static let removeTOTP = RequestDefinition<OperatorTarget, OperatorAccount>(
        "admin.operators.totp-remove", access: .operator, changesState: true, owner: gateway)

    /// The owner name of the types above.
    public static let gateway = "gateway"

    /// Every type the gateway answers itself.
    public static let all: [RequestInfo] = [
        publish.info, receipt.info, eventsRead.info, subscribe.info, audit.info, health.info,
        gatewayHealth.info, exportAccount.info, createOperator.info, updateOperator.info, listOperators.info,
        removeOperator.info, beginTOTP.info, confirmTOTP.info, removeTOTP.info,
    ]
}

/// The requests every service's runtime answers for it, named after the service
/// (`leaderboard.health`, `leaderboard.outbox.read`, …).
public enum ServiceRequests {
    /// The service's readiness: all anyone is told.
    public static func health(of service: String) -> RequestDefinition<EmptyPayload, Readiness> {
        RequestDefinition(.health(of: service), access: .anyone)
    }

    /// `<service>.health` with the admin key: the answering instance in detail.
    public static func healthDetails(of service: String) -> RequestDefinition<EmptyPayload, ServiceHealth> {
        RequestDefinition(.health(of: service), access: .anyone)
    }

    /// Makes the service publish a test notification to the request's player.
    public static func testNotification(of service: String) -> RequestDefinition<
        JSONValue, TestNotificationReceipt
    > {
        RequestDefinition(.testNotification(of: service), access: .signedIn)
    }

    /// The stored answer to a request id (the gateway, for `receipt.get`).
    public static func receipt(of service: String) -> RequestDefinition<ReceiptLookup, StoredReply> {
        RequestDefinition(MessageType("\(service).receipt"), access: .service)
    }

    /// A range of the service's outbox (services that follow it; operators).
    public static func outboxRead(of service: String) -> RequestDefinition<StreamRead, StreamPage> {
        RequestDefinition(.outboxRead(of: service), access: .serviceOrOperator)
    }

    /// Whether any instance of a service answers `type`, also one that stands by (it reads the
    /// shared store or reports on itself): these built-in types. Every other type goes to the
    /// instance that owns the data.
    public static func answeredByAnyInstance(_ type: MessageType) -> Bool {
        let service = type.serviceName
        return [
            health(of: service).type, testNotification(of: service).type, receipt(of: service).type,
            outboxRead(of: service).type,
        ]
        .contains(type)
    }
}
