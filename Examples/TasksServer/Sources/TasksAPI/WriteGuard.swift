import Hummingbird

/// What keeps a web page on another origin from writing through the browser of someone who
/// can reach the server (cross-site request forgery). A browser sends a "simple" cross-origin
/// POST (a form, or `fetch(…, {mode: "no-cors"})` with a `text/plain` body) without asking
/// first and only hides the answer from the page: the write would happen. So every write
/// (POST, PUT, PATCH, DELETE):
///
/// - with a body, must say `Content-Type: application/json` (415 otherwise): a browser sends
///   that content type cross-origin only after a CORS preflight, which the server answers
///   only for the origins it allows;
/// - with an `Origin` header, must come from the server's own origin (the `Host` it was
///   sent to) or one of `allowedOrigins` (`--cors-origin`; `*`: any): 403 otherwise.
///
/// Clients that are not browsers (curl, scripts, other services) send no `Origin` and pass
/// with a JSON body as before.
public struct WriteGuard<Context: RequestContext>: RouterMiddleware {
    let allowed: Set<String>

    public init(allowedOrigins: [String]) {
        allowed = Set(allowedOrigins)
    }

    static var writes: Set<HTTPRequest.Method> { [.post, .put, .patch, .delete] }

    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.writes.contains(request.method) else { return try await next(request, context) }
        if let origin = request.headers[.origin], !allowed.contains("*"), !allowed.contains(origin),
           !Self.isSameOrigin(origin, authority: request.head.authority) {
            throw APIError(.forbidden, "a write from the web page of another origin (\(origin)) is refused; "
                           + "start the server with --cors-origin \(origin) to allow that origin")
        }
        if request.method != .delete || request.headers[.contentLength].map({ $0 != "0" }) ?? false
            || request.headers[.transferEncoding] != nil {
            let type = request.headers[.contentType] ?? ""
            let media = type.split(separator: ";", maxSplits: 1).first.map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            } ?? ""
            if media != "application/json" {
                throw APIError(.unsupportedMediaType, "a request body must be JSON, sent with Content-Type: "
                               + "application/json (got \(type.isEmpty ? "none" : "'\(type)'"))")
            }
        }
        return try await next(request, context)
    }

    /// `origin` (`scheme://host[:port]`) names the server the request was sent to.
    static func isSameOrigin(_ origin: String, authority: String?) -> Bool {
        guard let authority, !authority.isEmpty else { return false }
        let lower = origin.lowercased(), host = authority.lowercased()
        return lower == "http://" + host || lower == "https://" + host
    }
}
