import Foundation
import Hummingbird
import Logging
import NIOPosix
import StreamQLite
import TasksAPI

// TasksServer: the tasks backend served straight from SQLite (StreamQLite + Hummingbird 2).
// Prints "TasksServer listening on http://HOST:PORT" once it accepts connections.

let options = ServerOptions(arguments: Array(CommandLine.arguments.dropFirst()))
var logger = Logger(label: "TasksServer")
logger.logLevel = Logger.Level(rawValue: options.logLevel) ?? .warning

let store: TaskStore
do {
    store = try await TaskStore(path: options.databasePath, readers: options.readers, executorThreads: options.executorThreads)
    if options.sample > 0 {
        let inserted = try await store.seed(options.sample)
        if inserted > 0 { FileHandle.standardOutput.write(Data("inserted \(inserted) sample tasks into \(options.databasePath)\n".utf8)) }
    }
} catch {
    FileHandle.standardError.write(Data("TasksServer: \(error)\n".utf8))
    exit(1)
}

let group = MultiThreadedEventLoopGroup.singleton
let probe = EventLoopProbe(group: group)
let router = Router()
addRoutes(to: router, store: store, probe: probe)

let app = Application(
    router: router,
    configuration: .init(address: .hostname(options.host, port: options.port), serverName: "TasksServer"),
    onServerRunning: { channel in
        let port = channel.localAddress?.port ?? options.port
        // Unbuffered: the test scripts read the port from this line while the server runs.
        FileHandle.standardOutput.write(Data("TasksServer listening on http://\(options.host):\(port) (database \(options.databasePath), pid \(getpid()))\n".utf8))
    },
    eventLoopGroupProvider: .shared(group),
    logger: logger
)
// With --executor-threads N (one per core by default) the request handlers run on the pool's own
// threads (child tasks inherit the preference), where `pool.read` runs inline: a point read
// costs no thread hop. The event loops still never run SQLite. With 0, handlers run on Swift's
// cooperative pool and every read hops to a reader thread and back.
if let executor = store.pool.executor {
    try await withTaskExecutorPreference(executor) { try await app.runService() }
} else {
    try await app.runService()
}
