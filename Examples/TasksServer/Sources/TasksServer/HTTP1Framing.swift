import NIOCore
import NIOHTTP1

/// A request whose framing RFC 9112 says a server must refuse: answered 400 by
/// ``MalformedRequestHandler`` and the connection closed.
struct HTTPFramingError: Error {
    var message: String
}

/// The framing rules of RFC 9112 that NIO's HTTP/1 parser leaves to the server, applied to
/// each request head before it is converted to HTTP types (which keep neither the version nor
/// a second `Host`), and the end of a connection whose client did not ask to keep it:
///
/// - no `Host` in an HTTP/1.1 request, or more than one in any request: 400 (§3.2);
/// - `Transfer-Encoding` in an HTTP/1.0 request: 400, the connection closed (§6.1: the
///   framing is faulty, a body length cannot be trusted);
/// - a request that is not keep-alive (HTTP/1.0 without `Connection: keep-alive`, or
///   `Connection: close`): its response says `Connection: close` and the connection is
///   closed once it is sent (§9.3).
///
/// A refused request and everything after it on the connection are dropped: the 400 is the
/// connection's last answer, after the responses still due for earlier requests.
final class HTTP1FramingHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Whether each request whose response is due keeps the connection, oldest first.
    private var keepAlive: [Bool] = []
    /// A request was refused: nothing more is read.
    private var refusing = false
    private let watch: ConnectionWatch

    init(watch: ConnectionWatch) {
        self.watch = watch
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refusing else { return }
        if case .head(let head) = unwrapInboundIn(data) {
            watch.headArrived()
            if let why = Self.fault(of: head) {
                refusing = true
                context.fireErrorCaught(HTTPFramingError(message: why))
                return
            }
            keepAlive.append(head.isKeepAlive)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where keepAlive.first == false:
            head.headers.replaceOrAdd(name: "Connection", value: "close")
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end:
            let keep = keepAlive.isEmpty ? true : keepAlive.removeFirst()
            if keepAlive.isEmpty { watch.responsesSent() }
            if keep {
                context.write(data, promise: promise)
            } else {
                context.writeAndFlush(data).assumeIsolated().whenComplete { result in
                    promise?.completeWith(result)
                    context.close(promise: nil)
                }
            }
        default:
            context.write(data, promise: promise)
        }
    }

    /// What is wrong with the framing of a request with this head, or nil.
    static func fault(of head: HTTPRequestHead) -> String? {
        let hosts = head.headers["Host"].count
        let http11 = head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1)
        if hosts > 1 { return "\(hosts) Host headers: a request has one (RFC 9112, section 3.2)" }
        if hosts == 0 && http11 { return "no Host header: an HTTP/1.1 request has one (RFC 9112, section 3.2)" }
        if !http11 && head.headers.contains(name: "Transfer-Encoding") {
            return "Transfer-Encoding in an HTTP/1.0 request: its body cannot be framed (RFC 9112, section 6.1)"
        }
        return nil
    }
}
