import Foundation
import PodiumRuntime
import Testing

@Suite("Memory trimmer")
struct MemoryTrimmerTests {
    /// Resident memory of this process, from /proc (Linux).
    static func residentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1024
    }

    @Test("a trim gives back memory that threads freed but their arenas kept")
    func trimReturnsFreedArenaMemory() async throws {
        #if os(Linux)
            // 128 MB in 16 KB blocks (below the mmap threshold: they come from an arena), touched,
            // freed, all on a thread of their own, as a burst of messages on a socket thread would.
            let worker = Thread {
                var blocks: [UnsafeMutableRawPointer] = []
                for _ in 0..<8192 {
                    let block = malloc(16 * 1024)!
                    memset(block, 1, 16 * 1024)
                    blocks.append(block)
                }
                // Keep the last block so the arena's top is in use and cannot simply shrink.
                for block in blocks.dropLast() { free(block) }
            }
            worker.start()
            while !worker.isFinished { try await Task.sleep(for: .milliseconds(10)) }
            let before = try #require(Self.residentBytes())
            #expect(MemoryTrimmer.trim())
            let after = try #require(Self.residentBytes())
            // Other tests run meanwhile, so only a clear drop counts: a quarter of what was freed.
            #expect(before - after > 32 * 1024 * 1024, "resident \(before) → \(after) bytes")
        #else
            #expect(!MemoryTrimmer.trim())
        #endif
    }
}
