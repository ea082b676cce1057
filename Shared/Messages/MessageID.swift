import Synchronization

/// Fresh ids for messages and requests in flight: UUID-shaped (version 4 layout, lowercase), unique
/// without a system call each.
///
/// Foundation's `UUID()` opens and reads `/dev/urandom` every time on Linux, which cost the
/// gateway about 8 % of its CPU under event load (one id per event, per forwarded request, per
/// reply). Here the process draws 122 random bits once; each id is those bits with a counter
/// folded into the low part, so ids never repeat within a process and two processes collide
/// only if their random draws do. They are not secrets: use `UUID()` (or better) for anything
/// that must not be guessed.
public enum MessageID {
    private static let counter = Atomic<UInt64>(0)
    private static let high: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        // Version 4 in bits 12-15.
        return (generator.next() & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
    }()
    private static let lowMask: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()

    /// A new id, for example `3f2a9c1e-7b40-4d2e-8a61-0c5e9b7d1f33`.
    public static func make() -> String {
        let count = counter.wrappingAdd(1, ordering: .relaxed).newValue
        // The variant (binary 10) in the top bits; the counter, masked, below: distinct for
        // 2^62 ids.
        let low = 0x8000_0000_0000_0000 | ((count ^ lowMask) & 0x3FFF_FFFF_FFFF_FFFF)
        return format(high, low)
    }

    static func format(_ high: UInt64, _ low: UInt64) -> String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var position = 0
            func put(_ value: UInt64, nibbles: Int) {
                for shift in stride(from: (nibbles - 1) * 4, through: 0, by: -4) {
                    buffer[position] = digits.withUTF8Buffer { $0[Int((value >> UInt64(shift)) & 0xF)] }
                    position += 1
                }
            }
            func dash() {
                buffer[position] = UInt8(ascii: "-")
                position += 1
            }
            put(high >> 32, nibbles: 8)
            dash()
            put((high >> 16) & 0xFFFF, nibbles: 4)
            dash()
            put(high & 0xFFFF, nibbles: 4)
            dash()
            put(low >> 48, nibbles: 4)
            dash()
            put(low & 0xFFFF_FFFF_FFFF, nibbles: 12)
            return position
        }
    }
}
