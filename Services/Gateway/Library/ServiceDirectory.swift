import Foundation
import PodiumMessages

/// Which service instances are connected and which request types each answers.
///
/// Pure state: the gateway feeds it announcements and the time; it never touches a socket.
struct ServiceDirectory: Sendable {
    struct Instance: Sendable, Equatable {
        let routingID: Data
        let announcement: ServiceAnnouncement
        var lastSeen: Int64
    }

    /// Heartbeats missed before an instance is considered gone (generous: a busy machine can
    /// delay a heartbeat, and dropping a live service fails every request routed to it).
    static let missedHeartbeatsAllowed: Int64 = 5

    /// A gap between two looks for lost instances longer than this means the gateway itself did
    /// not run (a starved machine, a paused process): the gap is not counted against heartbeats
    /// the gateway could not have read (the looks come every 100 ms at most).
    static let gatewayStallMilliseconds: Int64 = 500

    private(set) var instances: [Data: Instance] = [:]
    /// When ``expire(now:)`` last looked.
    private var lastExpiryCheck: Int64?
    private var rotation: [String: Int] = [:]
    /// Every request type a service has announced since the gateway started (the metrics' bounded
    /// set of type labels).
    private(set) var announcedTypes: Set<String> = []

    /// Records an announcement; returns true if the instance is new.
    @discardableResult
    mutating func register(_ announcement: ServiceAnnouncement, routingID: Data, now: Int64) -> Bool {
        let isNew = instances[routingID] == nil
        if isNew { announcedTypes.formUnion(announcement.requestTypes) }
        instances[routingID] = Instance(routingID: routingID, announcement: announcement, lastSeen: now)
        return isNew
    }

    /// Forgets one instance (it stopped answering or could not be reached).
    mutating func remove(routingID: Data) -> Instance? {
        instances.removeValue(forKey: routingID)
    }

    /// Forgets instances whose heartbeats stopped; returns them. Time the gateway was stalled
    /// (``gatewayStallMilliseconds``) is credited to every instance first: their heartbeats may
    /// be waiting, unread, in the gateway's socket.
    mutating func expire(now: Int64) -> [Instance] {
        if let last = lastExpiryCheck, now - last > Self.gatewayStallMilliseconds {
            for routingID in instances.keys { instances[routingID]?.lastSeen += now - last }
        }
        lastExpiryCheck = now
        let stale = instances.values.filter { instance in
            now - instance.lastSeen > Self.missedHeartbeatsAllowed
                * Int64(max(instance.announcement.heartbeatIntervalMilliseconds, 50))
        }
        for instance in stale { instances.removeValue(forKey: instance.routingID) }
        return stale
    }

    /// Names of the services with at least one live instance.
    var connectedServices: [String] {
        Set(instances.values.map(\.announcement.service)).sorted()
    }

    enum Route: Hashable {
        case instance(Data, service: String)
        case unavailable(service: String)
        case unknown
    }

    /// Picks an instance for a request type, rotating between instances of the same service.
    /// `key` is the request's partition key (``PartitionKey``): with the service's data split into
    /// partitions, only the instance that announced the key's partition serves it.
    mutating func route(_ type: MessageType, key: String? = nil, knownServices: [String]) -> Route {
        let announced = instances.values
            .filter { $0.announcement.requestTypes.contains(type.rawValue) }
            .sorted { $0.routingID.lexicographicallyPrecedes($1.routingID) }
        // With several instances sharing a database, only an instance that owns data (its
        // announced partitions not empty) serves; a standby answers only the built-in types.
        // A request with a partition key goes to the owner of its partition (each instance maps
        // the key with the partition count it announced: the same in every instance).
        // (Checked only when an instance leases: most deployments never pay for it per request.)
        let leased = announced.contains { $0.announcement.partitions != nil }
        let candidates: [Instance]
        if !leased || ServiceRequests.answeredByAnyInstance(type) {
            candidates = announced
        } else if let key {
            candidates = announced.filter { instance in
                let count = max(1, instance.announcement.partitionCount ?? 1)
                let partition = PartitionMap(partitions: count).partition(of: key)
                return instance.announcement.partitions.map { $0.contains(partition) } ?? true
            }
        } else {
            candidates = announced.filter { $0.announcement.partitions.map { !$0.isEmpty } ?? true }
        }
        if !announced.isEmpty && candidates.isEmpty { return .unavailable(service: type.serviceName) }
        if candidates.isEmpty {
            // A connected service that did not announce the type does not have it; a known
            // service with no instance connected may have it once it is back.
            let serviceConnected = instances.values.contains { $0.announcement.service == type.serviceName }
            if !serviceConnected && knownServices.contains(type.serviceName) {
                return .unavailable(service: type.serviceName)
            }
            return .unknown
        }
        let turn = rotation[type.serviceName, default: 0]
        rotation[type.serviceName] = turn &+ 1
        let chosen = candidates[turn % candidates.count]
        return .instance(chosen.routingID, service: chosen.announcement.service)
    }
}
