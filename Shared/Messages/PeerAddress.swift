/// A client's address as peers write it, without the port: `1.2.3.4:5678` and `[::1]:5678` give
/// `1.2.3.4` and `::1`; an address without a port (IPv6 included) is returned as it is.
public enum PeerAddress {
    public static func withoutPort(_ text: String) -> String {
        if text.hasPrefix("["), let end = text.firstIndex(of: "]") {
            return String(text[text.index(after: text.startIndex)..<end])
        }
        if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") { return String(text[..<colon]) }
        return text
    }
}
