import Testing

@testable import Gateway

@Suite("Trusted proxies")
struct TrustedProxiesTests {
    @Test("a request straight from an untrusted address is that address's, whatever X-Forwarded-For says")
    func untrusted() throws {
        let proxies = try TrustedProxies.parse("10.0.0.0/8, 127.0.0.1")
        #expect(proxies.clientAddress(remote: "203.0.113.7", forwardedFor: ["198.51.100.1"]) == "203.0.113.7")
        #expect(TrustedProxies.none.clientAddress(remote: "127.0.0.1", forwardedFor: ["198.51.100.1"]) == "127.0.0.1")
    }

    @Test("from a trusted proxy, the rightmost address that is not a trusted proxy is the client")
    func walk() throws {
        let proxies = try TrustedProxies.parse("10.0.0.0/8,127.0.0.1")
        #expect(proxies.clientAddress(remote: "127.0.0.1", forwardedFor: ["198.51.100.1"]) == "198.51.100.1")
        // A client that writes its own header cannot pick its address: the proxy appends the real one.
        #expect(
            proxies.clientAddress(remote: "127.0.0.1", forwardedFor: ["1.1.1.1, 198.51.100.1, 10.1.2.3"])
                == "198.51.100.1")
        #expect(proxies.clientAddress(remote: "10.9.9.9", forwardedFor: ["1.1.1.1", "198.51.100.1"]) == "198.51.100.1")
        #expect(
            proxies.clientAddress(remote: "127.0.0.1", forwardedFor: ["10.0.0.5"]) == "10.0.0.5",
            "every hop trusted: the farthest")
        #expect(proxies.clientAddress(remote: "127.0.0.1", forwardedFor: []) == "127.0.0.1")
        #expect(proxies.clientAddress(remote: "127.0.0.1", forwardedFor: ["198.51.100.1:4431"]) == "198.51.100.1")
        #expect(proxies.clientAddress(remote: "127.0.0.1", forwardedFor: ["[2001:db8::1]:443"]) == "2001:db8::1")
    }

    @Test("a malformed hop ends the walk at the hop before it")
    func malformed() throws {
        let proxies = try TrustedProxies.parse("127.0.0.1,10.0.0.0/8")
        #expect(proxies.clientAddress(remote: "127.0.0.1", forwardedFor: ["unknown"]) == "127.0.0.1")
        #expect(
            proxies.clientAddress(remote: "127.0.0.1", forwardedFor: ["198.51.100.1, garbage, 10.0.0.2"]) == "10.0.0.2")
    }

    @Test("IPv6 networks, IPv4-mapped addresses and canonical forms")
    func ipv6() throws {
        let proxies = try TrustedProxies.parse("fd00::/8, ::1")
        #expect(proxies.clientAddress(remote: "::1", forwardedFor: ["2001:0db8:0000::0001"]) == "2001:db8::1")
        #expect(proxies.clientAddress(remote: "fd12::5", forwardedFor: ["::ffff:198.51.100.1"]) == "198.51.100.1")
        #expect(proxies.clientAddress(remote: "fe80::1", forwardedFor: ["198.51.100.1"]) == "fe80::1")
        let v4 = try TrustedProxies.parse("192.168.1.0/24")
        #expect(v4.clientAddress(remote: "::ffff:192.168.1.20", forwardedFor: ["198.51.100.1"]) == "198.51.100.1")
        #expect(v4.clientAddress(remote: "192.168.2.1", forwardedFor: ["198.51.100.1"]) == "192.168.2.1")
    }

    @Test("a bad list is refused with the setting's name")
    func refused() {
        for bad in ["10.0.0.0/33", "example.com", "::1/129", "10.0.0.0/x", "1.2.3"] {
            #expect(throws: (any Error).self, "\(bad)") { try TrustedProxies.parse(bad) }
        }
        #expect((try? TrustedProxies.parse(" , "))?.isEmpty == true)
    }
}
