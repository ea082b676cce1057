import Foundation
import Hummingbird
import PodiumMessages

/// Answers what no route handles (and any other error the router raises) as a problem, so that
/// every response of the HTTP front that is not a success is `application/problem+json`. A path
/// with a trailing slash names no route (the router would match it without the slash): 404.
struct ProblemMiddleware: RouterMiddleware {
    typealias Context = HTTPFrontContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            let path = request.uri.path
            if path.count > 1, path.hasSuffix("/") { throw HTTPError(.notFound) }
            return try await next(request, context)
        } catch let error as HTTPResponseError {
            let status = error.status.code
            let reply: ErrorReply
            switch status {
            case 404, 405:
                reply = ErrorReply(
                    code: .unknownRoute,
                    message:
                        "no route for \(request.method.rawValue) \(request.uri.path); docs/PROTOCOL.md section 20 lists the routes, and POST /v1/call/<type> sends any request type"
                )
            case 413:
                reply = ErrorReply(code: .messageTooLarge, message: "the request is too large")
            case 400..<500:
                reply = ErrorReply(code: .malformedJSON, message: "the HTTP request could not be read")
            default:
                reply = ErrorReply(code: .internalError, message: "the gateway could not complete the request")
            }
            let requestID = request.headers[GatewayHTTPFront.idempotencyKeyField] ?? MessageID.make()
            return GatewayHTTPFront.problem(HTTPProblem(reply, requestID: requestID))
        }
    }
}
