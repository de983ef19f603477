import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// Disconnects a client that keeps the server waiting for longer than `timeout`: one that
/// takes no bytes of a response while the socket's send buffer is full (the channel stays
/// unwritable), or one that sends no bytes of a request body it has begun.
///
/// Without it such a client keeps its connection, the request's task and, for a streamed
/// response, the database reader and its WAL snapshot for ever (HTTP has no deadline of its
/// own, and Hummingbird's idle timeout counts only between requests). Closing the channel
/// fails the response writer's pending write, which ends the handler's task; that drops the
/// `JSONChunks` iterator, which stops the statement and gives the reader back. A slow
/// client that keeps taking bytes is never cut off: the clock restarts whenever the channel
/// becomes writable again or a body part arrives.
final class ClientDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let timeout: TimeAmount
    private let logger: Logger
    /// Set while the channel is unwritable: closes it when the client took nothing in time.
    private var sendDeadline: Scheduled<Void>?
    /// Set while a request body is being received: closes the channel when no part came in time.
    private var receiveDeadline: Scheduled<Void>?

    init(timeout: TimeAmount, logger: Logger) {
        self.timeout = timeout
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head, .body:
            receiveDeadline?.cancel()
            receiveDeadline = schedule(context, "sent no request body bytes")
        case .end:
            receiveDeadline?.cancel()
            receiveDeadline = nil
        }
        context.fireChannelRead(data)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            sendDeadline?.cancel()
            sendDeadline = nil
        } else if sendDeadline == nil {
            sendDeadline = schedule(context, "took no response bytes")
        }
        context.fireChannelWritabilityChanged()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelAll()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelAll()
    }

    private func cancelAll() {
        sendDeadline?.cancel()
        receiveDeadline?.cancel()
        sendDeadline = nil
        receiveDeadline = nil
    }

    private func schedule(_ context: ChannelHandlerContext, _ what: String) -> Scheduled<Void> {
        let loop = context.eventLoop.assumeIsolated()
        let seconds = Double(timeout.nanoseconds) / 1e9
        return loop.scheduleTask(in: timeout) { [logger] in
            logger.notice("client \(context.remoteAddress.map { "\($0)" } ?? "?") \(what) for \(seconds) s: disconnected")
            context.close(promise: nil)
        }
    }
}
