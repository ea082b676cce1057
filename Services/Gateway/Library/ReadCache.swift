import Foundation
import PodiumMessages
import PodiumRuntime

/// The shell around ``PopularReads``: answers a popular read from a kept page, and wraps the
/// connection of a forwarded request so that its reply fills a page (a read) or drops the game's
/// pages before the client hears it (a change). Off with `PODIUM_READ_CACHE=off`.
final class ReadCache: Sendable {
    private let state: Locked<PopularReads>
    private let clock: any PodiumClock

    init(lifetime: Duration, clock: any PodiumClock) {
        self.state = Locked(PopularReads(lifetime: lifetime.milliseconds))
        self.clock = clock
    }

    /// Pages kept now (for tests and the health view).
    var pageCount: Int { state.withLock { $0.count } }

    /// Answers the request from a kept page; false if there is none (forward it).
    func answer(_ request: ClientRequest, playerId: String?, client: ClientConnection) async -> Bool {
        guard let gameId = request.gameId,
            let key = PopularReads.key(
                type: request.type, version: request.version, gameId: gameId, payload: request.payload)
        else { return false }
        let (now, wallNow) = (clock.monotonicMilliseconds, clock.nowMilliseconds)
        guard let page = state.withLock({ $0.page(gameId: gameId, key: key, now: now, wallNow: wallNow) }) else {
            return false
        }
        // The envelope a service's reply would have had, written around the kept payload.
        let reply = RawEnvelope(
            type: .reply, correlationId: request.id, gameId: gameId, playerId: playerId, timestamp: wallNow,
            payload: page.value)
        if let deliverEncoded = client.deliverEncoded, let body = try? EnvelopeWriter.encode(reply, payload: page.text)
        {
            await deliverEncoded(body)
        } else {
            await client.deliver(reply)
        }
        return true
    }

    /// The connection to forward the request with: a popular read's reply fills a page; the
    /// answer to a change drops the game's pages before it is delivered.
    func connection(for request: ClientRequest, client: ClientConnection) -> ClientConnection {
        guard let gameId = request.gameId else { return client }
        if let key = PopularReads.key(
            type: request.type, version: request.version, gameId: gameId, payload: request.payload)
        {
            let ticket = state.withLock { $0.ticket(gameId: gameId, key: key) }
            var filling = ClientConnection(key: client.key, peer: client.peer) { [self] answer in
                if answer.type == .reply, let text = try? JSONWriter.data(answer.payload) {
                    fill(ticket, text: text, value: answer.payload)
                }
                await client.deliver(answer)
            }
            if let deliverEncoded = client.deliverEncoded {
                filling.deliverEncoded = { [self] body in
                    if let header = EnvelopeHeader.scan(body), header.type == MessageType.reply.rawValue,
                        let range = header.payloadRange
                    {
                        let text = Data(
                            body[(body.startIndex + range.lowerBound)..<(body.startIndex + range.upperBound)])
                        if let value = try? JSONParser.parse(text) { fill(ticket, text: text, value: value) }
                    }
                    await deliverEncoded(body)
                }
            }
            return filling
        }
        guard PopularReads.changesBoards(request.type) else { return client }
        var changing = ClientConnection(key: client.key, peer: client.peer) { [self] answer in
            invalidate(gameId: gameId)
            await client.deliver(answer)
        }
        if let deliverEncoded = client.deliverEncoded {
            changing.deliverEncoded = { [self] body in
                invalidate(gameId: gameId)
                await deliverEncoded(body)
            }
        }
        return changing
    }

    /// A game's boards changed (an acknowledgement, or a `score/…` message from the bus).
    func invalidate(gameId: String) {
        state.withLock { $0.invalidate(gameId: gameId) }
    }

    private func fill(_ ticket: PopularReads.Ticket, text: Data, value: JSONValue) {
        let (now, wallNow) = (clock.monotonicMilliseconds, clock.nowMilliseconds)
        state.withLock { _ = $0.fill(ticket, text: text, value: value, now: now, wallNow: wallNow) }
    }
}
