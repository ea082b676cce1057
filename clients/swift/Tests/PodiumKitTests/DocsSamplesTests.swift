import Foundation
import Testing

/// docs/clients/swift.md shows only code these tests run: each fenced Swift sample of the page,
/// after a `<!-- sample: NAME -->` line, is byte for byte the snippet between `// docs:begin NAME`
/// and `// docs:end NAME` in this folder's tests (less the snippet's common indentation). A
/// sample edited on one side only fails here.
@Suite struct DocsSamplesTests {
    static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let page = testsFolder.appendingPathComponent("../../../../docs/clients/swift.md").standardizedFileURL
    static let manifest = testsFolder.appendingPathComponent("../../Package.swift").standardizedFileURL

    /// The marked snippets of the tests, by name.
    static func snippets() throws -> [String: String] {
        var snippets: [String: String] = [:]
        let files = try FileManager.default.contentsOfDirectory(at: testsFolder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" && $0.lastPathComponent != "DocsSamplesTests.swift" }
        for file in files {
            var open: (name: String, lines: [Substring])?
            for line in try String(contentsOf: file, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false)
            {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("// docs:begin ") {
                    #expect(open == nil, "\(file.lastPathComponent): docs:begin inside \(open?.name ?? "")")
                    open = (String(trimmed.dropFirst("// docs:begin ".count)), [])
                } else if trimmed.hasPrefix("// docs:end ") {
                    let name = String(trimmed.dropFirst("// docs:end ".count))
                    guard let current = open, current.name == name else {
                        Issue.record("\(file.lastPathComponent): docs:end \(name) without its begin")
                        continue
                    }
                    #expect(snippets[name] == nil, "two snippets are named \(name)")
                    snippets[name] = dedented(current.lines)
                    open = nil
                } else if open != nil {
                    open?.lines.append(line)
                }
            }
            #expect(open == nil, "\(file.lastPathComponent): docs:begin \(open?.name ?? "") is never ended")
        }
        return snippets
    }

    /// The page's fenced Swift blocks, each with the marker line above it (nil without one).
    static func pageBlocks() throws -> [(marker: String?, code: String)] {
        let lines = try String(contentsOf: page, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        var blocks: [(String?, String)] = []
        var index = 0
        while index < lines.count {
            guard lines[index] == "```swift" else {
                index += 1
                continue
            }
            let marker = index > 0 ? lines[index - 1].trimmingCharacters(in: .whitespaces) : ""
            var end = index + 1
            while end < lines.count && lines[end] != "```" { end += 1 }
            blocks.append(
                (marker.hasPrefix("<!--") ? marker : nil, lines[(index + 1)..<end].joined(separator: "\n")))
            index = end + 1
        }
        return blocks
    }

    static func dedented(_ lines: [Substring]) -> String {
        let indent = lines.filter { !$0.allSatisfy(\.isWhitespace) }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return lines.map { $0.allSatisfy(\.isWhitespace) ? "" : String($0.dropFirst(indent)) }.joined(separator: "\n")
    }

    @Test func everySampleOfThePageIsRunByTheTests() throws {
        let snippets = try Self.snippets()
        let blocks = try Self.pageBlocks()
        #expect(blocks.count >= 15)
        var shown: Set<String> = []
        for block in blocks {
            guard let marker = block.marker else {
                Issue.record(
                    "a Swift block of \(Self.page.lastPathComponent) has no <!-- sample: … --> line:\n\(block.code)")
                continue
            }
            if marker == "<!-- manifest -->" { continue }
            guard marker.hasPrefix("<!-- sample: "), marker.hasSuffix(" -->") else {
                Issue.record("unknown marker \(marker)")
                continue
            }
            let name = String(marker.dropFirst("<!-- sample: ".count).dropLast(" -->".count))
            shown.insert(name)
            guard let snippet = snippets[name] else {
                Issue.record("the page's sample \(name) is not in the tests (// docs:begin \(name))")
                continue
            }
            #expect(block.code == snippet, "sample \(name) differs between the page and the tests")
        }
        let unshown = Set(snippets.keys).subtracting(shown)
        #expect(unshown.isEmpty, "marked in the tests but not on the page: \(unshown.sorted())")
    }

    /// The install block names the product this package declares.
    @Test func theManifestSampleNamesTheProduct() throws {
        let manifests = try Self.pageBlocks().filter { $0.marker == "<!-- manifest -->" }
        #expect(manifests.count == 1)
        #expect(manifests.first?.code.contains(#".product(name: "PodiumKit", package: "#) == true)
        let manifest = try String(contentsOf: Self.manifest, encoding: .utf8)
        #expect(manifest.contains(#".library(name: "PodiumKit", targets: ["PodiumKit"])"#))
        #expect(manifest.contains("// swift-tools-version: 6.0"))
    }
}
