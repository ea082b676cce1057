import ArgumentParser
import Foundation
import PodiumClient
import PodiumMessages

/// `podium health`: is the gateway up, and is every service ready?
struct HealthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Check the gateway and every service.",
        discussion: """
            Exit status: 0 when every service is ready, 1 otherwise. Anyone is told only whether \
            Podium is ready; with --admin-key (or $PODIUM_ADMIN_KEY) every service's instance, \
            events and gaps are shown.
            """)

    @OptionGroup var gateway: GatewayOptions

    @Option(
        name: .customLong("admin-key"),
        help: "The operator's admin key (default: $PODIUM_ADMIN_KEY), for the details of every service.")
    var adminKey: String?

    @Option(help: "Keep checking for up to this many seconds until everything is ready.")
    var wait: Double = 0

    @Flag(help: "Print the raw JSON reply instead of a table.")
    var json = false

    func run() throws {
        let connection = try GatewayConnection(gateway)
        let key = adminKey ?? ProcessInfo.processInfo.environment["PODIUM_ADMIN_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        let deadline = Date().addingTimeInterval(wait)
        var last: (text: String, ready: Bool?, details: SystemHealth?)?
        repeat {
            let remaining = max(200, min(gateway.timeoutMilliseconds, Int(deadline.timeIntervalSinceNow * 1000)))
            let timeout = Duration.milliseconds(wait > 0 ? remaining : gateway.timeoutMilliseconds)
            do {
                if let key {
                    let reply = try connection.client.exchange(
                        GatewayRequests.healthDetails, EmptyPayload(), credential: .adminKey(key), timeout: timeout)
                    let details = try? reply.value()
                    last = (reply.text, details?.ready, details)
                } else {
                    let reply = try connection.client.exchange(GatewayRequests.health, EmptyPayload(), timeout: timeout)
                    last = (reply.text, (try? reply.value())?.ready, nil)
                }
            } catch let error as PodiumClientError where error.kind == .noReply {
                last = nil
            }
            if last?.ready == true { break }
            if Date() < deadline { Thread.sleep(forTimeInterval: 0.5) }
        } while Date() < deadline
        guard let last else {
            complain("no reply from the gateway at \(gateway.endpoint)")
            throw ExitStatus.failure
        }
        if json {
            emit(last.text)
        } else if let details = last.details {
            print(table(details))
        } else if let ready = last.ready {
            print(ready ? "all services ready" : "NOT READY (the details need --admin-key)")
        } else {
            emit(last.text)
        }
        if last.ready != true { throw ExitStatus.failure }
    }

    private func table(_ health: SystemHealth) -> String {
        var lines = [pad("gateway") + "ready      " + health.gateway.instance]
        for name in health.services.keys.sorted() {
            guard let result = health.services[name] else { continue }
            if let detail = result.health {
                lines.append(
                    pad(name) + (result.ready ? "ready      " : "not ready  ") + detail.instance
                        + "  events=\(detail.eventsReceived) gaps=\(detail.gapsDetected)")
            } else {
                let reason = result.error.map { "\($0.code): \($0.message)" } ?? "unknown"
                lines.append(pad(name) + "not ready  " + reason)
            }
        }
        lines.append(health.ready ? "all services ready" : "NOT READY")
        return lines.joined(separator: "\n")
    }

    private func pad(_ text: String) -> String {
        text.padding(toLength: 13, withPad: " ", startingAt: 0)
    }
}
