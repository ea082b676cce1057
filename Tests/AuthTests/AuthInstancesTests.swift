import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import PodiumTokens
import Testing

@testable import Auth

/// Several auth instances on one PostgreSQL database: every one serves, and the throttles count
/// for the deployment (docs/SECURITY.md 3.4), not per process.
@Suite("Auth instances")
struct AuthInstancesTests {
    @Test(
        "auth instances all serve at once, and the login limits hold across them: the sixth wrong try is refused whichever instance gets it",
        .enabled(if: PodiumTestStack.storageKind == "postgresql", "leases and shared counts live in PostgreSQL"))
    func sharedLoginLimits() async throws {
        try await withPodiumStack(.init(instances: 2, leaseMilliseconds: 3000)) { stack in
            try await stack.waitUntilReady()
            try await stack.waitUntilSettled()
            let client = try TestClient(endpoint: stack.endpoints.requests)
            defer { Task { await client.close() } }
            let username = "target\(UInt32.random(in: 0...UInt32.max))"
            #expect(try await client.register(username).type == .reply)
            // The gateway sends the logins to the two instances in turn: counted per process,
            // each would have seen two or three failures and let the sixth try through.
            for _ in 0..<5 {
                #expect(try await client.login(username, password: "guess guess").errorCode == .invalidCredentials)
            }
            let refused = try await client.login(username)
            #expect(refused.errorCode == .rateLimited, "even the right password waits: the count is shared")
            #expect(try await client.login(username).errorCode == .rateLimited)
        }
    }
}
