import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// What every console response carries and how console requests are read: the strict
/// Content-Security-Policy and other headers, the session cookie, form bodies.
enum ConsoleHTTP {
    static let cookieName = "podium_console"
    /// Only the console's own files; no inline script or style, no framing, forms post to itself.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    static func headers(contentType: String) -> HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[HTTPField.Name("Content-Security-Policy")!] = contentSecurityPolicy
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        headers[.cacheControl] = "no-store"
        return headers
    }

    static func html(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: headers(contentType: "text/html; charset=utf-8"),
            body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    static func asset(_ body: String, contentType: String) -> Response {
        Response(
            status: .ok, headers: headers(contentType: contentType),
            body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    static func json(_ body: Data) -> Response {
        Response(
            status: .ok, headers: headers(contentType: "application/json"),
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// A 303 to `location` (after a form), optionally setting or clearing the session cookie.
    static func redirect(_ location: String, cookie: String? = nil) -> Response {
        var headers = headers(contentType: "text/plain; charset=utf-8")
        headers[.location] = location
        if let cookie { headers[.setCookie] = cookie }
        return Response(status: .seeOther, headers: headers)
    }

    /// The session cookie: HttpOnly, SameSite=Strict, limited to /console, Secure when the
    /// request came over TLS (a proxy in front says so with X-Forwarded-Proto).
    static func sessionCookie(_ id: String, request: Request) -> String {
        var cookie =
            "\(cookieName)=\(id); Path=/console; HttpOnly; SameSite=Strict; Max-Age=\(ConsoleSessions.lifetime / 1000)"
        if isTLS(request) { cookie += "; Secure" }
        return cookie
    }

    static func clearedCookie(request: Request) -> String {
        "\(cookieName)=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0" + (isTLS(request) ? "; Secure" : "")
    }

    static func isTLS(_ request: Request) -> Bool {
        request.head.scheme == "https" || request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
    }

    /// The session id from the request's cookies.
    static func sessionID(_ request: Request) -> String? {
        for field in request.headers[values: .cookie] {
            for part in field.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0] == cookieName { return String(pair[1]) }
            }
        }
        return nil
    }

    /// Whether a form post comes from the console's own pages: a browser's `Origin` must be this
    /// server's, and `Sec-Fetch-Site` must not say cross-site.
    static func isSameOrigin(_ request: Request) -> Bool {
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site == "cross-site" || site == "same-site" {
            return false
        }
        guard let origin = request.headers[.origin] else { return true }
        guard let host = request.head.authority else { return false }
        return origin == "http://\(host)" || origin == "https://\(host)"
    }

    /// An `application/x-www-form-urlencoded` body as a dictionary (the last value of a name wins).
    static func form(_ body: ByteBuffer) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(buffer: body).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            guard let name = parts.first, !name.isEmpty else { continue }
            fields[name] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    /// A request's query string as a dictionary, decoded as a form is (`+` is a space, as browsers
    /// send a search box's spaces).
    static func query(of request: Request) -> [String: String] {
        form(ByteBuffer(string: request.uri.query ?? ""))
    }

    /// Milliseconds since the epoch as ISO 8601, for pages.
    static func time(_ milliseconds: Int64?) -> String {
        guard let milliseconds else { return "-" }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(.iso8601)
    }

    /// A query string for a link, from the non-empty values.
    static func query(_ items: [(String, String?)]) -> String {
        var components = URLComponents()
        components.queryItems = items.compactMap { name, value in
            guard let value, !value.isEmpty else { return nil }
            return URLQueryItem(name: name, value: value)
        }
        return components.percentEncodedQuery.map { "?" + $0 } ?? ""
    }
}
