import PodiumMessages
import PodiumRuntime

extension GatewayPipeline {
    /// Where the services keep receipts of their state-changing requests: `<service>.receipt`
    /// of each service with a type that keeps receipts (``RequestCatalog``).
    static let receiptKeepers: [MessageType] = RequestCatalog.services.filter(
        RequestCatalog.receiptKeepingServices.contains
    )
    .map { ServiceRequests.receipt(of: $0).type }

    /// Where the receipts of a request type are kept: `nil` for the event log (`event.publish`),
    /// else the `<service>.receipt` of the service that owns the type; throws `invalid_field`
    /// for a type that keeps no receipts (its definition says so).
    static func receiptKeeper(of type: String) throws -> MessageType? {
        guard let info = RequestCatalog.info(MessageType(type)), info.keepsReceipt else {
            let keeping = RequestCatalog.all.filter(\.keepsReceipt).map(\.type.rawValue).joined(separator: ", ")
            throw ErrorReply(
                code: .invalidField, message: "'\(type.prefix(64))' keeps no receipts; these types do: \(keeping)",
                field: "payload.type")
        }
        return info.owner == GatewayRequests.gateway ? nil : ServiceRequests.receipt(of: info.owner).type
    }

    /// `receipt.get`: with the request's `type`, only the place that keeps that type's receipts;
    /// without it, the event log first, then the services that keep receipts. A service that
    /// cannot answer makes the whole answer an error: "not found" must mean "never applied".
    func receipt(_ request: ClientRequest, actor: Actor, playerId: String?) async throws -> RequestReceipt {
        guard let gameId = request.gameId else {
            throw ErrorReply(
                code: .missingField, message: "receipt.get needs the gameId of the request", field: "gameId")
        }
        guard let playerId else {
            throw ErrorReply(
                code: .missingField, message: "receipt.get needs the playerId the request acted for", field: "playerId")
        }
        let query = try RequestDecoder.payload(request.payload, as: ReceiptQuery.self)
        guard Identifiers.isValidRequestID(query.id) else {
            throw ErrorReply(
                code: .invalidField, message: "id must be 1-128 printable ASCII characters", field: "payload.id")
        }
        let timeout = min(settings.requestTimeout, .seconds(2))
        var keepers = Self.receiptKeepers
        var searchLog = true
        if let type = query.type {
            let keeper = try Self.receiptKeeper(of: type)
            searchLog = keeper == nil
            keepers = keeper.map { [$0] } ?? []
        }
        if searchLog,
            let acknowledgement = try await eventLog.acknowledgement(
                gameId: gameId, playerId: playerId, requestId: query.id)
        {
            let lookup = ReceiptLookup(gameId: gameId, playerId: playerId, sequence: acknowledgement.sequence)
            let answer = await router.ask(
                AchievementRequests.eventEffects.type, payload: try WireCodec.jsonValue(lookup), timeout: timeout)
            let effects = answer.type == .reply ? try? answer.decodePayload(as: EventEffects.self) : nil
            return RequestReceipt(
                id: query.id, found: true, type: MessageType.eventPublish.rawValue, acknowledgement: acknowledgement,
                effects: effects)
        }
        let lookup = try WireCodec.jsonValue(ReceiptLookup(gameId: gameId, playerId: playerId, id: query.id))
        for keeper in keepers {
            let answer = await router.ask(keeper, payload: lookup, timeout: timeout)
            guard answer.type == .reply, let stored = try? answer.decodePayload(as: StoredReply.self) else {
                let cause = (try? answer.decodePayload(as: ErrorReply.self))?.message ?? "no answer"
                throw ErrorReply(
                    code: .serviceUnavailable,
                    message:
                        "the \(keeper.serviceName) service cannot say yet whether it has '\(query.id)' (\(cause)); ask again"
                )
            }
            if stored.found {
                return RequestReceipt(id: query.id, found: true, type: stored.type, reply: stored.reply)
            }
        }
        return RequestReceipt(id: query.id, found: false)
    }
}
