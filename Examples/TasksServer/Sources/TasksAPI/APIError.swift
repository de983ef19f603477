import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1

/// An error the API reports to the client: an HTTP status and one sentence, sent as
/// `{"error":"…","status":400}`. Every refusal of bad input is one of these (4xx);
/// nothing a client sends makes a 500.
public struct APIError: Error, Sendable, CustomStringConvertible {
    public var status: HTTPResponse.Status
    public var message: String
    /// Headers the response carries besides the JSON content type (`Allow` on a 405).
    public var headers: HTTPFields

    public init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    public static func badRequest(_ message: String) -> APIError { APIError(.badRequest, message) }

    /// 501 for a method outside ``standardMethods`` (nil: one the HTTP parser could not read).
    public static func notImplemented(_ method: HTTPRequest.Method?) -> APIError {
        APIError(.notImplemented, "\(method.map { "\($0) is not implemented" } ?? "unknown HTTP method"): this server implements GET, HEAD, POST, PATCH and DELETE")
    }
    public static func notFound(_ message: String) -> APIError { APIError(.notFound, message) }

    public var description: String { "\(status.code) \(message)" }

    /// The error as a JSON response.
    public var response: Response {
        var response = JSONBody.error(status: status, message: message)
        response.headers.append(contentsOf: headers)
        return response
    }
}

/// The response helpers both servers share.
public enum JSONBody {
    /// `Content-Type: application/json`.
    public static let headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]

    /// A JSON response with `buffer` as its whole body.
    public static func response(_ status: HTTPResponse.Status = .ok, _ buffer: ByteBuffer) -> Response {
        Response(status: status, headers: headers, body: ResponseBody(byteBuffer: buffer))
    }

    struct ErrorBody: Encodable {
        var error: String
        var status: Int
    }

    /// `{"error":"message","status":code}`.
    public static func error(status: HTTPResponse.Status, message: String) -> Response {
        response(status, errorBody(status: status, message: message))
    }

    /// The body of ``error(status:message:)``, for a response written without the router.
    public static func errorBody(status: HTTPResponse.Status, message: String) -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes = (try? encoder.encode(ErrorBody(error: message, status: status.code))) ?? Data("{}".utf8)
        var buffer = ByteBuffer()
        buffer.writeBytes(bytes)
        buffer.writeInteger(UInt8(ascii: "\n"))
        return buffer
    }
}

/// HTTP's own methods (RFC 9110, and PATCH, RFC 5789): a path of the API answers those it lacks
/// with 405 and `Allow`. Any other method (WebDAV's `PROPFIND`, `PURGE`, an unknown token) is
/// 501 Not Implemented on every path, as RFC 9110 §9.1 says for a method the server does not
/// implement (Apache does the same). CONNECT names a host, not a path: left to the router.
public let standardMethods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options, .trace]

/// Turns every error escaping a handler into a JSON error body: ``APIError`` as it is,
/// Hummingbird's own (no such route 404, or 501 for a method outside ``standardMethods``;
/// body too large 413…) with their status, and
/// anything else, which is a server fault, into a 500 whose body says only
/// `internal error ID`, with the details in the log line that carries the same ID.
public struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return error.response
        } catch is NIOTooManyBytesError {
            return JSONBody.error(status: .contentTooLarge, message: tooLarge)
        } catch let error as HTTPError {
            if error.status == .notFound && !standardMethods.contains(request.method) && request.method != .connect {
                return APIError.notImplemented(request.method).response
            }
            let message: String
            switch error.status {
            case .notFound: message = error.body ?? "no route for \(request.method) \(request.uri.path)"
            case .contentTooLarge: message = tooLarge
            default: message = error.body ?? error.status.reasonPhrase
            }
            return JSONBody.error(status: error.status, message: message)
        } catch let error as HTTPParserError {
            // A client mistake, the same for both servers: say so at notice level, not as a fault.
            let message = error == .invalidEOFState
                ? "the request ended before its Content-Length (the client hung up mid-body)"
                : "malformed HTTP request: \(error)"
            context.logger.notice("\(request.method) \(request.uri): \(message)")
            return JSONBody.error(status: .badRequest, message: message)
        } catch let error as HTTPResponseError {
            return JSONBody.error(status: error.status, message: "\(error)")
        } catch {
            // The client gets an id to quote, the log line has the id and the details (which
            // may hold SQL and the schema: never sent).
            let id = String(UInt64.random(in: 0...UInt64.max), radix: 16)
            context.logger.error("internal error \(id): \(request.method) \(request.uri): \(error)")
            return JSONBody.error(status: .internalServerError, message: "internal error \(id)")
        }
    }
}

let tooLarge = "request body too large (limit \(maxBodyBytes / (1024 * 1024)) MiB)"

/// The largest request body either server reads (16 MiB).
public let maxBodyBytes = 16 * 1024 * 1024
