import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import TasksAPI

/// Answers a request that NIO's HTTP parser refuses before any of it reaches the router with
/// a JSON error like every other error, then closes the connection (the parser cannot go on
/// after an error): 501 Not Implemented for a method the parser does not know (`BREW /tasks`,
/// see ``standardMethods``), 400 for anything else (a malformed request line or header, or
/// framing ``HTTP1FramingHandler`` refuses). Without it Hummingbird answers 400 with an empty body.
///
/// A parse error in the middle of a request (a body shorter than its Content-Length) goes on
/// to the handler reading that body, which answers it (``JSONErrorMiddleware``). One that
/// comes while earlier responses are still due (pipelined requests) is answered after the
/// last of them, never in the middle of one.
final class MalformedRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let logger: Logger
    /// Requests whose head came and whose response has not ended.
    private var responsesDue = 0
    /// Between a request's head and its end.
    private var receiving = false
    /// A parse error to answer once the responses due are sent.
    private var pending: APIError?

    init(logger: Logger) {
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            responsesDue += 1
            receiving = true
        case .body:
            break
        case .end:
            receiving = false
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        context.write(data, promise: promise)
        guard case .end = unwrapOutboundIn(data) else { return }
        responsesDue -= 1
        if responsesDue == 0, let error = pending {
            pending = nil
            respond(with: error, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let answer: APIError
        if let error = error as? HTTPParserError, !receiving {
            answer = error == .invalidMethod ? APIError.notImplemented(nil) : APIError.badRequest("malformed HTTP request: \(error)")
        } else if let error = error as? HTTPFramingError {
            answer = APIError.badRequest("malformed HTTP request: \(error.message)")
        } else {
            context.fireErrorCaught(error)
            return
        }
        if responsesDue > 0 {
            pending = answer
        } else {
            respond(with: answer, context: context)
        }
    }

    private func respond(with answer: APIError, context: ChannelHandlerContext) {
        logger.notice("client \(context.remoteAddress.map { "\($0)" } ?? "?"): \(answer.message)")
        let body = JSONBody.errorBody(status: answer.status, message: answer.message)
        var head = HTTPResponse(status: answer.status, headerFields: JSONBody.headers)
        head.headerFields[.contentLength] = String(body.readableBytes)
        head.headerFields[.connection] = "close"
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}
