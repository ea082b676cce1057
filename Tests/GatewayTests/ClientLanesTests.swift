import Foundation
import Testing

@testable import Gateway

/// Per-connection lanes: in order within a connection, side by side across connections, bounded.
@Suite("Client lanes (pure)")
struct ClientLanesTests {
    let ann = Data([1])
    let bob = Data([2])

    @Test("the first request of an idle lane starts a worker; later ones wait in order for it")
    func order() {
        var lanes = ClientLanes<Int>(capacity: 10)
        var started: [Bool] = []
        started.append(lanes.enqueue(1, on: ann))
        started.append(lanes.enqueue(2, on: ann))
        started.append(lanes.enqueue(3, on: ann))
        started.append(lanes.enqueue(10, on: bob))
        #expect(started == [true, false, false, true])
        #expect(lanes.busyLanes == 2)
        #expect(lanes.queued == 2)
        var taken: [Int?] = []
        taken.append(lanes.next(on: ann))
        taken.append(lanes.next(on: ann))
        taken.append(lanes.next(on: ann))
        #expect(taken == [2, 3, nil])
        // Idle again: the next request starts a new worker.
        let restarted = lanes.enqueue(4, on: ann)
        #expect(restarted)
        let bobNext = lanes.next(on: bob)
        let annNext = lanes.next(on: ann)
        #expect(bobNext == nil && annNext == nil)
        #expect(lanes.busyLanes == 0)
        #expect(lanes.queued == 0)
    }

    @Test("waiting requests are bounded over all lanes; a worker's own request does not count")
    func capacity() {
        var lanes = ClientLanes<Int>(capacity: 2)
        _ = lanes.enqueue(1, on: ann)
        #expect(lanes.hasRoom)
        _ = lanes.enqueue(2, on: ann)
        _ = lanes.enqueue(3, on: ann)
        #expect(!lanes.hasRoom)
        _ = lanes.enqueue(20, on: bob)
        #expect(lanes.queued == 2)
        _ = lanes.next(on: ann)
        #expect(lanes.hasRoom)
    }
}
