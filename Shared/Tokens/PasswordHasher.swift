import CryptoExtras
import Dispatch
import Foundation

/// Hashes and checks passwords with scrypt (swift-crypto's CryptoExtras), salted per password.
///
/// scrypt is deliberately slow and memory-hard, so it runs on a queue of its own with bounded
/// concurrency (``lanes``), never on Swift's cooperative pool. Stored form: `scrypt$<N>$<r>$<p>$<salt base64>$<hash base64>`,
/// so the cost can be raised later without breaking existing hashes.
public struct PasswordHasher: Sendable {
    /// scrypt's cost parameters.
    public struct Cost: Sendable, Equatable {
        public var rounds: Int
        public var blockSize: Int
        public var parallelism: Int

        /// The production cost: N = 2^15, r = 8, p = 1 (about 32 MiB and tens of ms per hash).
        public static let standard = Cost(rounds: 1 << 15, blockSize: 8, parallelism: 1)
        /// A cheap cost for tests only.
        public static let testing = Cost(rounds: 1 << 10, blockSize: 8, parallelism: 1)
    }

    public let cost: Cost
    /// At most this many hashes run at once (half the cores, at least one); the rest wait their
    /// turn in the queue, off the cooperative pool. Unbounded, a burst of logins (a guessing
    /// attack) took every core from the service's other requests and its bus loops: scripts/fuzz
    /// saw `auth.profile` pass the 5 s service timeout during 800 wrong logins on 2 cores.
    public static let lanes = max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
    private static let queue: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "podium.auth.password-hashing"
        queue.maxConcurrentOperationCount = lanes
        return queue
    }()

    public init(cost: Cost = .standard) {
        self.cost = cost
    }

    /// A new salted hash of `password`.
    public func hash(_ password: String) async throws -> String {
        let salt = (0..<16).map { _ in UInt8.random(in: .min ... .max) }
        let cost = self.cost
        let derived = try await Self.offload { try Self.derive(password, salt: salt, cost: cost) }
        return [
            "scrypt", "\(cost.rounds)", "\(cost.blockSize)", "\(cost.parallelism)",
            Data(salt).base64EncodedString(), Data(derived).base64EncodedString(),
        ].joined(separator: "$")
    }

    /// Whether `password` matches `stored` (compared in constant time).
    public func verify(_ password: String, against stored: String) async throws -> Bool {
        let parts = stored.split(separator: "$").map(String.init)
        guard parts.count == 6, parts[0] == "scrypt", let rounds = Int(parts[1]), let blockSize = Int(parts[2]),
            let parallelism = Int(parts[3]), let salt = Data(base64Encoded: parts[4]),
            let expected = Data(base64Encoded: parts[5])
        else { return false }
        let cost = Cost(rounds: rounds, blockSize: blockSize, parallelism: parallelism)
        let derived = try await Self.offload { try Self.derive(password, salt: Array(salt), cost: cost) }
        guard derived.count == expected.count else { return false }
        return zip(derived, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private static func derive(_ password: String, salt: [UInt8], cost: Cost) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8), salt: salt, outputByteCount: 32, rounds: cost.rounds,
            blockSize: cost.blockSize, parallelism: cost.parallelism, maxMemory: 256 << 20)
        return key.withUnsafeBytes { Array($0) }
    }

    private static func offload<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            queue.addOperation { continuation.resume(with: Result { try work() }) }
        }
    }
}
