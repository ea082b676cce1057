import CZeroMQ
import Foundation
import Synchronization

/// Forwards messages between two sockets on a dedicated thread with libzmq's own
/// `zmq_proxy_steerable` (for example XSUB ⇄ XPUB, the bus's many-to-many hub).
public final class ZMQProxy: Sendable {
    /// A name for logs and the thread.
    public let name: String
    private let control: Mutex<ZMQSocket?>
    private let finished = FinishSignal()

    /// Takes ownership of both sockets (already bound or connected) and starts forwarding.
    public init(context: ZMQContext, name: String, frontend: sending ZMQSocket, backend: sending ZMQSocket) throws {
        let endpoint = "inproc://podium.proxy-control.\(UUID().uuidString)"
        let controlReceiver = try context.makeSocket(.pair)
        let controlSender = try context.makeSocket(.pair)
        try controlReceiver.bind(endpoint)
        try controlSender.connect(endpoint)
        self.name = name
        self.control = Mutex(controlSender)
        let transfer = OwnershipTransfer((frontend, backend, controlReceiver))
        let finished = self.finished
        let thread = Thread {
            let (frontend, backend, controlReceiver) = transfer.value
            Self.forward(frontend: frontend, backend: backend, control: controlReceiver)
            frontend.close()
            backend.close()
            controlReceiver.close()
            finished.signal()
        }
        thread.name = "zmq.proxy.\(name)"
        thread.start()
    }

    private static func forward(frontend: ZMQSocket, backend: ZMQSocket, control: ZMQSocket) {
        frontend.withHandle { front in
            backend.withHandle { back in
                control.withHandle { ctl in
                    while zmq_proxy_steerable(front, back, nil, ctl) != 0 && zmq_errno() == EINTR {}
                }
            }
        }
    }

    /// Returns when the proxy has ended: after ``stop()``, or earlier if forwarding failed.
    public func waitUntilFinished() async {
        await finished.wait()
    }

    /// Stops forwarding, closes both sockets and returns when the thread has ended.
    public func stop() async {
        control.withLock { socket in
            // Never blocks: if the proxy already ended, nobody reads the control socket any more.
            _ = try? socket?.send([Data("TERMINATE".utf8)], wait: false)
            socket?.close()
            socket = nil
        }
        await finished.wait()
    }

    deinit {
        control.withLock { socket in
            _ = try? socket?.send([Data("TERMINATE".utf8)], wait: false)
            socket?.close()
        }
    }
}

extension ZMQSocket {
    /// Lends the raw handle to this module's own C calls, never outside it.
    func withHandle(_ body: (UnsafeMutableRawPointer?) -> Void) {
        body(rawHandle)
    }
}
