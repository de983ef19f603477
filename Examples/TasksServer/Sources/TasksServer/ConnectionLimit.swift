import Foundation
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import TasksAPI

/// The server's open connections, and the cap that keeps room below the process's file
/// descriptor limit: past the cap a new connection takes the place of the one that has
/// waited longest without sending a whole request head (an idle keep-alive connection, or a
/// client dribbling a head byte by byte); when every connection has a request in progress,
/// the newest is answered 503 and closed. So clients that hold connections without asking
/// for anything cannot lock others out until their timeouts, and the server never runs out
/// of descriptors for the database and the answers it owes.
final class ConnectionRegistry: Sendable {
    private struct Entry: Sendable {
        var channel: any Channel
        /// Since when it has waited for a request head; nil while a request is in progress.
        var waitingSince: NIODeadline?
    }

    let cap: Int
    private let entries = NIOLockedValueBox([ObjectIdentifier: Entry]())

    init(cap: Int) {
        self.cap = cap
    }

    /// The cap for this process: `requested`, or what the descriptor limit leaves once
    /// `reserved` descriptors are kept for the database, the event loops and the listener.
    static func cap(requested: Int?, reserved: Int) -> Int {
        var limit = rlimit()
        let soft = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? Int(clamping: limit.rlim_cur) : 1024
        let room = max(8, soft - reserved)
        return min(requested ?? room, room)
    }

    var count: Int { entries.withLockedValue { $0.count } }

    /// Admits `channel`: true, after closing the longest-waiting idle connection when at the
    /// cap; false when every connection has a request in progress (the caller refuses it).
    func admit(_ channel: any Channel) -> Bool {
        let (admitted, victim): (Bool, (any Channel)?) = entries.withLockedValue { entries in
            var victim: (any Channel)?
            if entries.count >= cap {
                var oldest: (key: ObjectIdentifier, since: NIODeadline)?
                for (key, entry) in entries {
                    if let since = entry.waitingSince, oldest == nil || since < oldest!.since { oldest = (key, since) }
                }
                guard let oldest else { return (false, nil) }
                victim = entries.removeValue(forKey: oldest.key)?.channel
            }
            entries[ObjectIdentifier(channel)] = Entry(channel: channel, waitingSince: .now())
            return (true, victim)
        }
        victim?.close(promise: nil)
        return admitted
    }

    func remove(_ channel: any Channel) {
        _ = entries.withLockedValue { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// A request head arrived (`waiting` false) or the last response due was sent (true).
    func setWaiting(_ channel: any Channel, _ waiting: Bool) {
        entries.withLockedValue { entries in
            entries[ObjectIdentifier(channel)]?.waitingSince = waiting ? .now() : nil
        }
    }
}

/// One connection's state for the head deadline and the registry, shared by the handler at
/// the front of the pipeline (bytes) and ``HTTP1FramingHandler`` (request heads, responses).
/// Used on the connection's event loop only.
final class ConnectionWatch {
    let channel: any Channel
    let registry: ConnectionRegistry
    /// No request in progress: the next bytes begin a head.
    var waitingForHead = true
    /// Set from the first byte of a head until the head is whole.
    var headDeadline: Scheduled<Void>?

    init(channel: any Channel, registry: ConnectionRegistry) {
        self.channel = channel
        self.registry = registry
    }

    func headArrived() {
        waitingForHead = false
        headDeadline?.cancel()
        headDeadline = nil
        registry.setWaiting(channel, false)
    }

    func responsesSent() {
        waitingForHead = true
        registry.setWaiting(channel, true)
    }
}

/// At the front of a connection's pipeline: admits it through the registry (or answers 503
/// and closes it), and closes it when a request head is not whole within `timeout` of its
/// first byte (the deadline of ``ClientDeadlineHandler`` starts only once a head is whole).
final class RequestHeadDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let watch: ConnectionWatch
    private let timeout: TimeAmount
    private let logger: Logger

    init(watch: ConnectionWatch, timeout: TimeAmount, logger: Logger) {
        self.watch = watch
        self.timeout = timeout
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard watch.registry.admit(context.channel) else {
            logger.notice("client \(context.remoteAddress.map { "\($0)" } ?? "?"): refused, \(watch.registry.cap) connections all busy")
            refuse(context)
            return
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if watch.waitingForHead && watch.headDeadline == nil {
            let watch = self.watch, timeout = self.timeout, logger = self.logger
            watch.headDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
                watch.headDeadline = nil
                guard watch.waitingForHead else { return }
                let seconds = Double(timeout.nanoseconds) / 1e9
                logger.notice("client \(context.remoteAddress.map { "\($0)" } ?? "?") sent no whole request head in \(seconds) s: disconnected")
                context.close(promise: nil)
            }
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        watch.headDeadline?.cancel()
        watch.headDeadline = nil
        watch.registry.remove(context.channel)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        watch.headDeadline?.cancel()
        watch.headDeadline = nil
    }

    /// 503 in the JSON every error has, written before any HTTP handler sees the connection.
    private func refuse(_ context: ChannelHandlerContext) {
        let body = JSONBody.errorBody(status: .serviceUnavailable,
                                      message: "too many connections: every one of the server's \(watch.registry.cap) has a request in progress; retry")
        var buffer = context.channel.allocator.buffer(capacity: 256 + body.readableBytes)
        buffer.writeString("HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json; charset=utf-8\r\n"
                           + "retry-after: 1\r\nconnection: close\r\ncontent-length: \(body.readableBytes)\r\n\r\n")
        buffer.writeImmutableBuffer(body)
        context.writeAndFlush(NIOAny(buffer)).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}

/// Put among Hummingbird's additional handlers: installs, for its connection, the registry's
/// admission and the head deadline at the front of the pipeline and ``HTTP1FramingHandler``
/// before the conversion to HTTP types, where request versions and repeated headers are
/// still seen; then passes HTTP parts along.
final class ConnectionGuardInstaller: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart

    private let registry: ConnectionRegistry
    private let headTimeout: TimeAmount
    private let logger: Logger

    init(registry: ConnectionRegistry, headTimeout: TimeAmount, logger: Logger) {
        self.registry = registry
        self.headTimeout = headTimeout
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let watch = ConnectionWatch(channel: context.channel, registry: registry)
        let sync = context.pipeline.syncOperations
        do {
            let codec = try sync.context(handlerType: HTTP1ToHTTPServerCodec.self)
            try sync.addHandler(HTTP1FramingHandler(watch: watch), position: .before(codec.handler))
            try sync.addHandler(RequestHeadDeadlineHandler(watch: watch, timeout: headTimeout, logger: logger), position: .first)
        } catch {
            logger.error("cannot install the connection guards: \(error)")
            context.close(promise: nil)
        }
    }
}
