import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import StreamQLite
import TasksAPI

// TasksServer: the tasks backend served straight from SQLite (StreamQLite + Hummingbird 2).
// Prints "TasksServer listening on http://HOST:PORT" once it accepts connections.

// A standard output or error whose reader went away must not end the server (SIGPIPE);
// such a write then fails and is dropped (Console).
signal(SIGPIPE, SIG_IGN)
let options = ServerOptions(arguments: Array(CommandLine.arguments.dropFirst()))
var logger = Logger(label: "TasksServer")
logger.logLevel = Logger.Level(rawValue: options.logLevel) ?? .warning

let store: TaskStore
do {
    store = try await TaskStore(path: options.databasePath, readers: options.readers, executorThreads: options.executorThreads,
                                clientTimeout: options.clientTimeout, readerWait: options.readerWait)
    if options.sample > 0 {
        let inserted = try await store.seed(options.sample)
        if inserted > 0 { Console.out("inserted \(inserted) sample tasks into \(options.databasePath)") }
    }
} catch {
    Console.error("TasksServer: \(error)")
    exit(1)
}

let group = MultiThreadedEventLoopGroup.singleton
let probe = EventLoopProbe(group: group)
let router = Router()
addRoutes(to: router, store: store, probe: probe, corsOrigins: options.corsOrigins)

let clientTimeout = TimeAmount.nanoseconds(Int64(options.clientTimeout * 1e9))
let connectionLogger = logger
// Descriptors kept for the database (a file, its WAL and shared memory per connection), the
// event loops, the listener and standard streams.
let connections = ConnectionRegistry(cap: ConnectionRegistry.cap(requested: options.maxConnections,
                                                                 reserved: 64 + 4 * (options.readers + 1)))
let app = Application(
    router: router,
    server: .http1(configuration: .init(
        additionalChannelHandlers: [ConnectionGuardInstaller(registry: connections, headTimeout: clientTimeout, logger: connectionLogger),
                                    ClientDeadlineHandler(timeout: clientTimeout, logger: connectionLogger),
                                    MalformedRequestHandler(logger: connectionLogger)],
        idleTimeout: .seconds(60))),
    configuration: .init(address: .hostname(options.host, port: options.port), serverName: "TasksServer"),
    onServerRunning: { channel in
        let port = channel.localAddress?.port ?? options.port
        // Unbuffered: the test scripts read the port from this line while the server runs.
        Console.out("TasksServer listening on http://\(options.host):\(port) (database \(options.databasePath), pid \(getpid()))")
    },
    eventLoopGroupProvider: .shared(group),
    logger: logger
)
// With --executor-threads N (one per core by default) the request handlers run on the pool's own
// threads (child tasks inherit the preference), where `pool.read` runs inline: a point read
// costs no thread hop. The event loops still never run SQLite. With 0, handlers run on Swift's
// cooperative pool and every read hops to a reader thread and back.
//
// SIGTERM or SIGINT: stop accepting, let requests in progress finish for --shutdown-grace
// seconds, then cancel them (a stalled client's response is cut; the client deadline has
// usually done that already), then checkpoint the WAL into the database file, so that
// tasks.db alone holds every task once the process has exited.
var serviceConfiguration = ServiceGroupConfiguration(
    services: [.init(service: app)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
serviceConfiguration.maximumGracefulShutdownDuration = .nanoseconds(Int64(options.shutdownGrace * 1e9))
serviceConfiguration.maximumCancellationDuration = .seconds(10)
let services = ServiceGroup(configuration: serviceConfiguration)
do {
    if let executor = store.pool.executor {
        try await withTaskExecutorPreference(executor) { try await services.run() }
    } else {
        try await services.run()
    }
} catch {
    logger.error("server stopped: \(error)")
}
do {
    try await store.checkpoint()
} catch {
    Console.error("TasksServer: checkpoint on exit failed, the WAL file still holds the latest writes: \(error)")
    exit(1)
}
