import Foundation

/// A received multipart message and what libzmq knows about where it came from.
public struct ZMQMessage: Sendable, Equatable {
    /// The frames, in order, each complete.
    public var frames: [Data]
    /// The sender's network address, when it was asked for and the transport has one.
    public var peerAddress: String?

    public init(frames: [Data], peerAddress: String? = nil) {
        self.frames = frames
        self.peerAddress = peerAddress
    }
}
