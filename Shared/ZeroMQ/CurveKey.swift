import CZeroMQ
import Foundation

/// A CURVE key (Curve25519): 32 bytes, written as 40 characters of Z85 in configuration.
///
/// The description never shows the key, so a secret key cannot end up in a log by accident;
/// ask for ``z85`` explicitly.
public struct CurveKey: Sendable, Hashable, CustomStringConvertible {
    /// The 32 raw bytes.
    public let bytes: [UInt8]

    /// Length of a key in bytes.
    public static let byteCount = 32
    /// Length of a key in Z85 text.
    public static let z85Count = 40

    /// A key from its 32 raw bytes; nil for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// A key from its 40-character Z85 text; nil if the text is not exactly that.
    public init?(z85 text: String) {
        guard text.utf8.count == Self.z85Count else { return nil }
        var decoded = [UInt8](repeating: 0, count: Self.byteCount)
        // zmq_z85_decode reads a C string and refuses characters outside the Z85 alphabet.
        guard zmq_z85_decode(&decoded, text) != nil else { return nil }
        bytes = decoded
    }

    /// The key as 40 characters of Z85 (which include shell characters such as `&`, `<`, `*`: quote it).
    public var z85: String {
        var text = [CChar](repeating: 0, count: Self.z85Count + 1)
        _ = bytes.withUnsafeBufferPointer { zmq_z85_encode(&text, $0.baseAddress, $0.count) }
        return String(decoding: text.prefix(Self.z85Count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String { "CurveKey(<redacted>)" }
}

/// A CURVE key pair: the public key others use to reach or recognise this side, and its secret.
public struct CurveKeyPair: Sendable, Hashable {
    public let publicKey: CurveKey
    public let secretKey: CurveKey

    /// Whether this libzmq was built with CURVE (libsodium or its tweetnacl copy).
    public static var isAvailable: Bool { zmq_has("curve") == 1 }

    /// A fresh random key pair (zmq_curve_keypair).
    public static func generate() throws -> CurveKeyPair {
        guard isAvailable else { throw ZMQError.curveUnavailable }
        var publicText = [CChar](repeating: 0, count: CurveKey.z85Count + 1)
        var secretText = [CChar](repeating: 0, count: CurveKey.z85Count + 1)
        guard zmq_curve_keypair(&publicText, &secretText) == 0 else { throw ZMQError.last("zmq_curve_keypair") }
        guard let publicKey = CurveKey(z85: String(cString: publicText)),
            let secretKey = CurveKey(z85: String(cString: secretText))
        else { throw ZMQError.invalid("zmq_curve_keypair", "libzmq returned a key that is not Z85") }
        return CurveKeyPair(publicKey: publicKey, secretKey: secretKey)
    }

    /// The pair of a secret key: its public key is derived from it (zmq_curve_public).
    public init(secretKey: CurveKey) throws {
        guard Self.isAvailable else { throw ZMQError.curveUnavailable }
        var publicText = [CChar](repeating: 0, count: CurveKey.z85Count + 1)
        guard zmq_curve_public(&publicText, secretKey.z85) == 0 else { throw ZMQError.last("zmq_curve_public") }
        guard let publicKey = CurveKey(z85: String(cString: publicText)) else {
            throw ZMQError.invalid("zmq_curve_public", "libzmq returned a key that is not Z85")
        }
        self.init(publicKey: publicKey, secretKey: secretKey)
    }

    public init(publicKey: CurveKey, secretKey: CurveKey) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// The options that make a socket a CURVE server with this pair (set them before bind).
    public var serverOptions: [SocketOption] {
        [.curveServer(true), .curveSecretKey(secretKey), .curvePublicKey(publicKey)]
    }

    /// The options that make a socket a CURVE client of `server` with this pair (set them before connect).
    public func clientOptions(server: CurveKey) -> [SocketOption] {
        [.curveServerKey(server), .curvePublicKey(publicKey), .curveSecretKey(secretKey)]
    }
}
