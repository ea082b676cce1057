import ArgumentParser
import Foundation
import PodiumClient
import PodiumMessages

/// `podium health`: is the gateway up, and is every service ready?
struct HealthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Check the gateway and every service.",
        discussion: "Exit status: 0 when every service is ready, 1 otherwise.")

    @OptionGroup var gateway: GatewayOptions

    @Option(help: "Keep checking for up to this many seconds until everything is ready.")
    var wait: Double = 0

    @Flag(help: "Print the raw JSON reply instead of a table.")
    var json = false

    func run() throws {
        let connection = try GatewayConnection(gateway)
        let deadline = Date().addingTimeInterval(wait)
        var last: (PodiumReply<SystemHealth>?, SystemHealth?) = (nil, nil)
        repeat {
            let remaining = max(200, min(gateway.timeoutMilliseconds, Int(deadline.timeIntervalSinceNow * 1000)))
            let reply: PodiumReply<SystemHealth>?
            do {
                reply = try connection.client.exchange(
                    GatewayRequests.health, EmptyPayload(),
                    timeout: .milliseconds(wait > 0 ? remaining : gateway.timeoutMilliseconds))
            } catch let error as PodiumClientError where error.kind == .noReply {
                reply = nil
            }
            let health = try? reply?.value()
            last = (reply, health)
            if health?.ready == true { break }
            if Date() < deadline { Thread.sleep(forTimeInterval: 0.5) }
        } while Date() < deadline
        let (reply, health) = last
        guard let reply else {
            complain("no reply from the gateway at \(gateway.endpoint)")
            throw ExitStatus.failure
        }
        if json {
            emit(reply.text)
        } else if let health {
            print(table(health))
        } else {
            emit(reply.text)
        }
        if health?.ready != true { throw ExitStatus.failure }
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
