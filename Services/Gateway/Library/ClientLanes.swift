import DequeModule
import Foundation

/// The ZeroMQ front's requests waiting to enter the pipeline, one lane per connection: a
/// connection's requests go in the order they came, one at a time; different connections' go
/// side by side, so that one client waiting (its token checked with the auth service, its event
/// written) never holds up the others.
///
/// Pure state, tested without sockets. ``enqueue(_:on:)`` says when a lane was idle and needs a
/// worker; the worker takes requests with ``next(on:)`` until it gets nil, which also marks the
/// lane idle again. ``queued`` bounds the memory: the front stops reading past ``capacity``.
struct ClientLanes<Work: Sendable>: Sendable {
    let capacity: Int
    private var lanes: [Data: Deque<Work>] = [:]
    /// Requests waiting in all lanes (not counting the one each worker is handling).
    private(set) var queued = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Whether more may be queued now.
    var hasRoom: Bool { queued < capacity }
    /// Lanes with a worker.
    var busyLanes: Int { lanes.count }

    /// Queues work on a connection's lane; true when the lane was idle (start a worker for it).
    mutating func enqueue(_ work: Work, on lane: Data) -> Bool {
        if lanes[lane] != nil {
            lanes[lane]!.append(work)
            queued += 1
            return false
        }
        lanes[lane] = []
        return true
    }

    /// The lane's next work for its worker, or nil: the lane is idle and its worker stops.
    mutating func next(on lane: Data) -> Work? {
        guard var waiting = lanes[lane] else { return nil }
        guard let work = waiting.popFirst() else {
            lanes.removeValue(forKey: lane)
            return nil
        }
        lanes[lane] = waiting
        queued -= 1
        return work
    }
}
