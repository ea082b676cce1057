import Foundation
import PodiumMessages

/// Requests forwarded to services and not yet answered.
///
/// Pure state keyed by the internal request id the gateway put on the forwarded envelope.
struct PendingRequests: Sendable {
    enum Origin: Sendable {
        /// A client's request: the reply goes back on the client's connection.
        case client(ClientConnection, requestID: String)
        /// The gateway's own question (a session check, a health fan-out): the answer fills the
        /// slot its task waits on.
        case gateway(ReplySlot<RawEnvelope>)
        /// Another service's question: the reply goes back on the service ROUTER.
        case service(routingID: Data, requestID: String)
    }

    struct Entry: Sendable {
        let origin: Origin
        let service: String
        let serviceRoutingID: Data
        let deadline: Int64
        /// The client request's type: replies to types that change sessions are never passed on
        /// encoded (``ClientSessions/changesSessions(_:)``).
        var requestType: MessageType? = nil
    }

    private(set) var entries: [String: Entry] = [:]
    private var clientKeys: Set<ClientKey> = []
    /// Client requests in flight per connection; connections with none are absent.
    private var perConnection: [ClientConnection.Key: Int] = [:]

    private struct ClientKey: Hashable, Sendable {
        let connection: ClientConnection.Key
        let requestID: String
    }

    var count: Int { entries.count }

    /// Whether this connection already has a request with this id in flight.
    func isInFlight(connection: ClientConnection.Key, requestID: String) -> Bool {
        clientKeys.contains(ClientKey(connection: connection, requestID: requestID))
    }

    /// How many of this connection's requests are waiting on services.
    func inFlight(fromConnection connection: ClientConnection.Key) -> Int { perConnection[connection] ?? 0 }

    mutating func add(_ entry: Entry, internalID: String) {
        if let replaced = entries.updateValue(entry, forKey: internalID) { forget(replaced) }
        if case .client(let connection, let requestID) = entry.origin {
            clientKeys.insert(ClientKey(connection: connection.key, requestID: requestID))
            perConnection[connection.key, default: 0] += 1
        }
    }

    /// The entry of a request in flight, left in place.
    func entry(internalID: String) -> Entry? {
        entries[internalID]
    }

    /// Removes and returns the entry a reply answers.
    mutating func complete(internalID: String) -> Entry? {
        guard let entry = entries.removeValue(forKey: internalID) else { return nil }
        forget(entry)
        return entry
    }

    /// Removes and returns the entries whose deadline has passed.
    mutating func expire(now: Int64) -> [Entry] {
        let expired = entries.filter { $0.value.deadline <= now }
        for (id, entry) in expired {
            entries.removeValue(forKey: id)
            forget(entry)
        }
        return Array(expired.values)
    }

    /// Removes every entry (at shutdown).
    mutating func drain() -> [Entry] {
        let all = Array(entries.values)
        entries.removeAll()
        clientKeys.removeAll()
        perConnection.removeAll()
        return all
    }

    private mutating func forget(_ entry: Entry) {
        if case .client(let connection, let requestID) = entry.origin {
            clientKeys.remove(ClientKey(connection: connection.key, requestID: requestID))
            let left = (perConnection[connection.key] ?? 1) - 1
            perConnection[connection.key] = left > 0 ? left : nil
        }
    }
}
