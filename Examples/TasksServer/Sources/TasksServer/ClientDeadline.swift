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
/// `Database.ResultChunks` iterator, which stops the statement and gives the reader back. A slow
/// client that keeps taking bytes is never cut off: the clock restarts whenever the channel
/// becomes writable again or a body part arrives. A request that arrives whole costs no
/// timer.
final class ClientDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let timeout: TimeAmount
    private let logger: Logger
    /// Set while the channel is unwritable: closes it when the client took nothing in time.
    private var sendDeadline: Scheduled<Void>?
    /// Between a request's head and its end: a body is being received.
    private var receiving = false
    /// When the last part of the request came.
    private var lastReceived = NIODeadline.now()
    /// Set while a request body is awaited after a read: checks `lastReceived` when it fires
    /// (one timer per stalled body, none for a request that arrives whole in one read).
    private var receiveDeadline: Scheduled<Void>?

    init(timeout: TimeAmount, logger: Logger) {
        self.timeout = timeout
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head, .body:
            receiving = true
            lastReceived = .now()
        case .end:
            receiving = false
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if receiving && receiveDeadline == nil { scheduleReceiveCheck(context, at: lastReceived + timeout) }
        context.fireChannelReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            sendDeadline?.cancel()
            sendDeadline = nil
        } else if sendDeadline == nil {
            sendDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
                disconnect(context, "took no response bytes")
            }
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

    private func scheduleReceiveCheck(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        receiveDeadline = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            receiveDeadline = nil
            guard receiving else { return }
            let due = lastReceived + timeout
            if NIODeadline.now() >= due {
                disconnect(context, "sent no request body bytes")
            } else {
                scheduleReceiveCheck(context, at: due)
            }
        }
    }

    private func disconnect(_ context: ChannelHandlerContext, _ what: String) {
        let seconds = Double(timeout.nanoseconds) / 1e9
        logger.notice("client \(context.remoteAddress.map { "\($0)" } ?? "?") \(what) for \(seconds) s: disconnected")
        context.close(promise: nil)
    }
}
