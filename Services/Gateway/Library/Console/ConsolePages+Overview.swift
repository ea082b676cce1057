import Foundation
import PodiumClient
import PodiumMessages
import PodiumRuntime

/// The console's overview page and its forms.
extension ConsolePages {
    /// What the overview shows and refreshes by itself (`/console/api/overview`, polled every 5 s).
    struct OverviewNumbers: Encodable {
        /// A process of the deployment and whether it is ready.
        struct Process: Encodable {
            var name: String
            var ready: Bool
            var detail: String
        }

        /// A service's stream follower: its position, the stream's head and how far behind it is.
        struct StreamLag: Encodable {
            var service: String
            var stream: String
            var position: UInt64
            var head: UInt64
            var lag: UInt64
        }

        var time: Int64
        var requests: Int64
        var errors: Int64
        var eventLogHead: Int64
        var processes: [Process]
        var streams: [StreamLag]
        /// The length of a timeline slot, s.
        var slotSeconds: Int64
        /// The last ten minutes of requests, errors and latency percentiles (ms), oldest first.
        var timeline: [RequestTimeline.Point]
    }

    func overviewNumbers() async -> OverviewNumbers {
        let health = await parts.pipeline.systemHealth()
        var processes = [
            OverviewNumbers.Process(
                name: "gateway", ready: health.gateway.ready, detail: "instance \(health.gateway.instance)")
        ]
        var streams: [OverviewNumbers.StreamLag] = []
        for service in health.services.keys.sorted() {
            let result = health.services[service]!
            processes.append(
                .init(
                    name: service, ready: result.ready,
                    detail: result.health.map { "\($0.eventsReceived) bus messages, \($0.gapsDetected) gaps" }
                        ?? result.error.map(Self.describe) ?? ""))
            for (stream, status) in (result.health?.streams ?? [:]).sorted(by: { $0.key < $1.key }) {
                streams.append(
                    .init(
                        service: service, stream: stream, position: status.position, head: status.head,
                        lag: status.head - min(status.head, status.position)))
            }
        }
        let now = parts.clock.nowMilliseconds
        let counts = parts.pipeline.counts
        let timeline = counts.timeline.withLock { $0 }
        return OverviewNumbers(
            time: now, requests: Int64(counts.requests.load(ordering: .relaxed)),
            errors: Int64(counts.errors.load(ordering: .relaxed)), eventLogHead: Int64(parts.eventLog.head),
            processes: processes, streams: streams, slotSeconds: timeline.slotMilliseconds / 1000,
            timeline: timeline.points(now: now))
    }

    func overview(session: ConsoleSessions.Session) async -> (template: String, data: [String: Any]) {
        let numbers = await overviewNumbers()
        let processes = numbers.processes.map { ["name": $0.name, "ready": $0.ready, "detail": $0.detail] }
        let streams = numbers.streams.map {
            ["service": $0.service, "stream": $0.stream, "position": $0.position, "head": $0.head, "lag": $0.lag]
        }
        let now = parts.clock.nowMilliseconds
        let sessions = parts.sessions.value.active(now: now).map { other -> [String: Any] in
            [
                "label": other.label, "peer": other.peer ?? "-", "since": ConsoleHTTP.time(other.createdAt),
                "current": other.id == session.id,
            ]
        }
        let size = parts.eventLog.store.files.reduce(0) { $0 + StorageLocation.bytesOnDisk($1) }
        return (
            "overview",
            [
                "processes": processes, "streams": streams, "sessions": sessions,
                "requests": numbers.requests, "errors": numbers.errors, "eventLogHead": numbers.eventLogHead,
                "eventLogSize": ByteCountFormatter.string(fromByteCount: Int64(size), countStyle: .file),
            ]
        )
    }
}

extension ConsoleTemplates {
    static let overview = """
        <section class="cards" id="processes">
        {{#processes}}<div class="card {{#ready}}ok{{/ready}}{{^ready}}down{{/ready}}" data-process="{{name}}"><h2>{{name}}</h2><p class="state">{{#ready}}ready{{/ready}}{{^ready}}not ready{{/ready}}</p>{{#detail}}<p class="detail">{{detail}}</p>{{/detail}}</div>{{/processes}}
        </section>
        <p class="hint" id="updated">Refreshes every 5 s by itself.</p>
        <section>
        <h2>Traffic</h2>
        <p>Requests answered <strong id="requests">{{requests}}</strong>, of them errors <strong id="errors">{{errors}}</strong>; event log at <strong id="head">{{eventLogHead}}</strong> ({{eventLogSize}}).</p>
        <canvas id="traffic" class="chart" width="720" height="200" aria-label="requests and errors per second, last ten minutes"></canvas>
        <p class="legend"><span class="swatch requests"></span> requests/s <span class="swatch errors"></span> errors/s, per 5 s over the last 10 minutes</p>
        <h2>Latency</h2>
        <canvas id="latency" class="chart" width="720" height="200" aria-label="request latency percentiles in milliseconds, last ten minutes"></canvas>
        <p class="legend"><span class="swatch p50"></span> p50 <span class="swatch p95"></span> p95 <span class="swatch p99"></span> p99, ms on a logarithmic scale, of the requests the gateway answered in each 5 s</p>
        <p id="latency-now" class="hint"></p>
        </section>
        <section>
        <h2>Stream lag</h2>
        <div class="scroll"><table><thead><tr><th>service</th><th>stream</th><th>position</th><th>head</th><th>lag</th></tr></thead><tbody id="lag">
        {{#streams}}<tr><td>{{service}}</td><td>{{stream}}</td><td>{{position}}</td><td>{{head}}</td><td>{{lag}}</td></tr>{{/streams}}
        {{^streams}}<tr><td colspan="5">no followers</td></tr>{{/streams}}
        </tbody></table></div>
        </section>
        <section>
        <h2>Console sessions</h2>
        <div class="scroll"><table><thead><tr><th>session</th><th>from</th><th>since</th><th></th></tr></thead><tbody>
        {{#sessions}}<tr><td><code>{{label}}</code>{{#current}} (this one){{/current}}</td><td>{{peer}}</td><td>{{since}}</td><td><form method="post" action="/console/sessions/revoke" data-confirm="End the console session {{label}}? Its operator is logged out."><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="session" value="{{label}}"><button type="submit">Revoke</button></form></td></tr>{{/sessions}}
        </tbody></table></div>
        </section>
        """
}
