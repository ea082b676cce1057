import Foundation
import HTTPTypes
import Hummingbird
import PodiumMessages

/// Answers CORS preflights and adds CORS headers for the allowed origins (``CORSPolicy``).
struct CORSMiddleware: RouterMiddleware {
    typealias Context = HTTPFrontContext
    let policy: CORSPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let origin = request.headers[.origin]
        if request.method == .options, let origin, request.headers[.accessControlRequestMethod] != nil {
            guard let headers = policy.preflight(origin: origin) else {
                return GatewayHTTPFront.problem(
                    HTTPProblem(
                        ErrorReply(
                            code: .forbidden,
                            message: "the origin \(origin) may not call this server (PODIUM_HTTP_ALLOWED_ORIGINS)"),
                        requestID: nil))
            }
            var fields = HTTPFields()
            for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
            return Response(status: .noContent, headers: fields)
        }
        var response = try await next(request, context)
        for (name, value) in policy.headers(origin: origin) { response.headers[HTTPField.Name(name)!] = value }
        return response
    }
}
