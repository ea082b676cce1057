import Foundation
import PodiumMessages
import Testing

@Suite("Request definitions")
struct RequestCatalogTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test("every type is defined once, named after the service that answers it")
    func namesAndOwners() {
        var seen = Set<MessageType>()
        for info in RequestCatalog.all {
            #expect(seen.insert(info.type).inserted, "\(info.type) is defined twice")
            if info.owner == GatewayRequests.gateway {
                #expect(RequestCatalog.gatewayTypes.contains(info.type))
            } else {
                #expect(info.type.serviceName == info.owner, "\(info.type) is answered by \(info.owner)")
                #expect(RequestCatalog.services.contains(info.owner))
            }
        }
    }

    @Test("operator-only types are exactly those named as operators' (admin.*, <service>.admin.*)")
    func operatorTypes() {
        for info in RequestCatalog.all {
            #expect(
                info.access.isOperatorOnly == RequestCatalog.isOperatorName(info.type),
                "\(info.type): \(info.access)")
        }
    }

    @Test("no credential is needed only to log in and to ask for readiness")
    func publicTypes() {
        let expected: Set<MessageType> = Set(
            [
                "auth.register", "auth.login", "auth.device-login", "auth.refresh", "health",
                "gateway.health",
            ]
                + RequestCatalog.services.map { MessageType("\($0).health") })
        #expect(RequestCatalog.publicTypes == expected)
    }

    @Test(
        "the idempotent types keep receipts, each where the gateway will ask for them (PROTOCOL 4.2)")
    func receiptKeepers() {
        let keeping = Set(RequestCatalog.all.filter(\.keepsReceipt).map(\.type))
        #expect(
            keeping == [
                "event.publish", "leaderboard.submit", "achievement.report", "challenge.issue",
                "challenge.start",
            ])
        #expect(RequestCatalog.receiptKeepingServices == ["leaderboard", "achievement", "challenge"])
        let keepersChangeState = RequestCatalog.all.filter(\.keepsReceipt).allSatisfy(\.changesState)
        #expect(keepersChangeState)
        for service in RequestCatalog.receiptKeepingServices {
            let access = RequestCatalog.info(ServiceRequests.receipt(of: service).type)?.access
            #expect(access == RequestAccess.service)
        }
    }

    @Test("service-only types admit no client credential")
    func serviceOnly() throws {
        for type: MessageType in [
            "auth.session-check", "auth.friends.of", "achievement.event-effects", "leaderboard.receipt",
        ] {
            let access = try #require(RequestCatalog.info(type)).access
            for kind in [Actor.Kind.anonymous, .player, .server] {
                #expect(!access.admits(kind), "\(type) admits \(kind)")
            }
            #expect(access.admits(.service))
        }
    }

    @Test("every client-facing type is documented in docs/PROTOCOL.md")
    func documented() throws {
        let protocolText = try String(
            contentsOf: Self.root.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
        for info in RequestCatalog.all where !info.access.kinds.isSubset(of: [.service]) {
            // The runtime's per-service types are documented once, as `<service>.…`.
            let generic = "`<service>." + info.type.rawValue.drop(while: { $0 != "." }).dropFirst() + "`"
            #expect(
                protocolText.contains("`\(info.type)`") || protocolText.contains(generic),
                "\(info.type) is not in docs/PROTOCOL.md")
        }
    }

    @Test("leaderboard.entry says null when there is no entry, as documented")
    func entryNull() throws {
        #expect(
            String(decoding: try WireCodec.encode(EntryReply(entry: nil)), as: UTF8.self)
                == #"{"entry":null}"#)
        #expect(
            try WireCodec.decode(EntryReply.self, from: Data(#"{"entry":null}"#.utf8))
                == EntryReply(entry: nil))
    }

    /// Services learn about each other only from messages, and name them through the shared
    /// definitions: a service's sources spell no other service's message type as a string.
    @Test("no service spells another service's message type as a string")
    func noForeignTypeStrings() throws {
        let services = [
            "Auth": "auth", "Leaderboard": "leaderboard", "Achievement": "achievement",
            "Challenge": "challenge", "Gateway": "gateway",
        ]
        let known = Set(RequestCatalog.all.map(\.type.rawValue)).union(
            [MessageType.scoreAccepted, .achievementEarned, .sessionsRevoked, .authHeartbeat].map(
                \.rawValue))
        let literal = try Regex(#""([a-z]+\.[a-z][a-z.-]*)""#)
        var offences: [String] = []
        for (directory, service) in services {
            let folder = Self.root.appendingPathComponent("Services/\(directory)")
            let files =
                FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
            #expect(!files.isEmpty, "no sources under \(folder.path)")
            for file in files {
                let text = try String(contentsOf: file, encoding: .utf8)
                for match in text.matches(of: literal) {
                    let type = String(text[match.output[1].range!])
                    let owner = RequestCatalog.info(MessageType(type))?.owner ?? MessageType(type).serviceName
                    if known.contains(type) && owner != service {
                        offences.append("\(file.lastPathComponent): \(type)")
                    }
                }
            }
        }
        #expect(offences.isEmpty, "spelled as strings: \(offences)")
    }
}
