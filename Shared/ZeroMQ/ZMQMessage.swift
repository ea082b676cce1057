import Foundation

/// A received multipart message and what libzmq knows about where it came from.
public struct ZMQMessage: Sendable, Equatable {
    /// The frames, in order, each complete; only the first ones if the message broke the
    /// ``ReceiveLimits`` it was read with (see ``isTruncated``).
    public var frames: [Data]
    /// The sender's network address, when it was asked for and the transport has one.
    public var peerAddress: String?
    /// How many frames the message really had.
    public var frameCount: Int
    /// How many bytes all its frames held together.
    public var byteCount: Int

    public init(frames: [Data], peerAddress: String? = nil) {
        self.init(
            frames: frames, peerAddress: peerAddress, frameCount: frames.count,
            byteCount: frames.reduce(0) { $0 + $1.count })
    }

    public init(frames: [Data], peerAddress: String?, frameCount: Int, byteCount: Int) {
        self.frames = frames
        self.peerAddress = peerAddress
        self.frameCount = frameCount
        self.byteCount = byteCount
    }

    /// Whether frames were read and dropped because the message broke its limits.
    public var isTruncated: Bool { frames.count < frameCount }
}

/// How much of one multipart message a receiver keeps. The rest of a message over either limit
/// is still read off the socket (so the next message starts where it should) but not kept, so a
/// peer cannot make the receiver hold more than this whatever it sends.
///
/// libzmq itself holds a whole multipart message before the first frame can be read, each frame
/// at most ``SocketOption/maxMessageSize(_:)``; these limits bound what Podium copies and queues.
public struct ReceiveLimits: Sendable, Hashable {
    /// Frames kept; later frames are dropped.
    public var maxFrames: Int
    /// Bytes kept across all frames; the frame that crosses the limit and every later one are dropped.
    public var maxBytes: Int

    public init(maxFrames: Int, maxBytes: Int) {
        self.maxFrames = maxFrames
        self.maxBytes = maxBytes
    }
}
