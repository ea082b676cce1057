import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What carries PodiumKit's HTTP requests. ``URLSessionTransport`` is the default; supply another
/// to route requests through your own stack or to observe them in tests.
///
/// A transport sends one request and returns the response as received, whatever its status:
/// PodiumKit reads error replies itself. It throws only when there is no response (a `URLError`,
/// or a ``PodiumError`` of its own).
public protocol PodiumHTTPTransport: Sendable {
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
}

/// The default transport: one `URLSession` (FoundationNetworking's on Linux).
public struct URLSessionTransport: PodiumHTTPTransport {
    public let session: URLSession

    public init(session: URLSession = .shared) { self.session = session }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else {
            throw PodiumError(code: .invalidReply, message: "the answer to \(request.url?.path ?? "?") is not HTTP")
        }
        return (data, http)
    }
}
