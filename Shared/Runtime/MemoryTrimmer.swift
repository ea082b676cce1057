import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Gives freed heap memory back to the system every few seconds (glibc's `malloc_trim`).
///
/// glibc keeps what a busy thread's arena freed: after a burst of large messages the gateway
/// held 278 MB of arenas with 12 MB in use (measured with `malloc_stats` during
/// `scripts/fuzz`), so its resident memory only grew. Trimming returns the free pages of every
/// arena. It runs on a thread of its own: a trim takes the arenas' locks for a few
/// milliseconds and must not block the concurrency pool.
public enum MemoryTrimmer {
    /// How often the heap is trimmed.
    public static let interval: TimeInterval = 5

    private typealias MallocTrim = @convention(c) (Int) -> Int32

    /// glibc's `malloc_trim`, looked up at run time (Swift's Glibc module does not import `<malloc.h>`).
    private static let mallocTrim: MallocTrim? = {
        #if canImport(Glibc)
            guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
            return unsafeBitCast(symbol, to: MallocTrim.self)
        #else
            return nil
        #endif
    }()

    /// Trims once; returns whether the C library has a trim (false off glibc).
    @discardableResult
    public static func trim() -> Bool {
        guard let mallocTrim else { return false }
        _ = mallocTrim(0)
        return true
    }

    /// Starts the trimming thread for the life of the process (once; later calls do nothing).
    public static func start() {
        guard mallocTrim != nil else { return }
        started.withLock { started in
            guard !started else { return }
            started = true
            let thread = Thread {
                while true {
                    Thread.sleep(forTimeInterval: interval)
                    trim()
                }
            }
            thread.name = "podium.memory-trim"
            thread.start()
        }
    }

    private static let started = Locked(false)
}
