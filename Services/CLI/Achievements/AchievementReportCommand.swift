import ArgumentParser
import Foundation
import PodiumClient
import PodiumMessages

/// `podium achievements report`: direct progress reports, one from the flags or a batch from a file.
struct AchievementReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Report progress on achievements and print each outcome (achievement.report).",
        discussion: """
            One report from --achievement with --percent (0-100) or --steps (out of the achievement's \
            target), or a batch from --file F (- for standard input): a JSON array of \
            {"achievementId", "percentComplete" | "steps", "reportId"?}, sent as it is (an error names a \
            report by its index from 0: payload.reports.2 is the third). Progress never goes down; a \
            --report-id the server has seen returns the first outcome again (status duplicate).
            Exit status 1 for an error reply (then no report of the batch took effect).
            """)

    @OptionGroup var options: AchievementsOptions

    @Option(name: .customLong("achievement"), help: "The achievement id.")
    var achievementId: String?

    @Option(help: "Percent complete, 0-100.")
    var percent: Double?

    @Option(help: "Steps completed, out of the achievement's target.")
    var steps: Int64?

    @Option(name: .customLong("report-id"), help: "An id for this report; sending it again changes nothing.")
    var reportId: String?

    @Option(help: "Read a JSON array of reports from this file, or - for standard input.")
    var file: String?

    func validate() throws {
        if file != nil {
            if achievementId != nil || percent != nil || steps != nil || reportId != nil {
                throw ValidationError("give either --file or --achievement with --percent or --steps, not both")
            }
            return
        }
        guard achievementId != nil else {
            throw ValidationError("give --achievement (with --percent or --steps) or --file")
        }
        switch (percent, steps) {
        case (nil, nil): throw ValidationError("give --percent or --steps")
        case (.some, .some): throw ValidationError("give either --percent or --steps, not both")
        default: break
        }
    }

    func run() throws {
        let reply: ProgressReportReply
        if let file {
            (reply, _) = try options.send(Self.fileReport, FileReports(reports: try reports(from: file)))
        } else {
            let report = ProgressReport(
                achievementId: achievementId ?? "", percentComplete: percent, steps: steps, reportId: reportId)
            (reply, _) = try options.send(AchievementRequests.report, ProgressReportBatch(reports: [report]))
        }
        if options.json { return }
        emit(Self.table(reply.outcomes))
    }

    /// A batch read from a file: each report as the file has it, so that the service checks
    /// each one and names a bad one by its index.
    struct FileReports: Codable, Sendable {
        var reports: [JSONValue]
    }

    static let fileReport = AchievementRequests.report.withPayload(FileReports.self)

    /// The file's reports as written; the service checks each one (and names the bad one by index).
    private func reports(from file: String) throws -> [JSONValue] {
        let data: Data
        if file == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileManager.default.contents(atPath: file) else {
                throw CommandFailure("cannot read \(file)")
            }
            data = contents
        }
        guard let parsed = try? WireCodec.decode(JSONValue.self, from: data) else {
            throw CommandFailure("\(file) is not JSON")
        }
        // The whole payload ({"reports": [...]}) is taken too.
        guard case .array(let items) = parsed["reports"] ?? parsed else {
            throw CommandFailure("\(file) must hold a JSON array of reports")
        }
        guard !items.isEmpty else { throw CommandFailure("\(file) holds no reports") }
        if let index = items.firstIndex(where: { $0.objectValue == nil }) {
            throw CommandFailure("\(file): report \(index + 1) is not a JSON object")
        }
        return items
    }

    static func table(_ outcomes: [ReportOutcome]) -> String {
        var table = TextTable([.left, .left, .left, .right, .left, .right])
        table.append(["achievement", "status", "progress", "", "", "times earned"])
        for outcome in outcomes {
            table.append(
                [outcome.achievementId, outcome.status]
                    + AchievementProgressText.columns(
                        percent: outcome.percentComplete, steps: outcome.steps, target: outcome.target)
                    + [String(outcome.timesEarned)])
        }
        return table.text
    }
}
