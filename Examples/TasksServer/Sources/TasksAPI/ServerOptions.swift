import Foundation

/// Command-line options both servers take.
public struct ServerOptions: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var databasePath = "tasks.db"
    public var sample = 0
    public var readers = 4
    /// TasksServer only: threads of the pool's executor, on which requests are handled and
    /// point reads run inline (0: Swift's cooperative pool, every read hops to a reader). One
    /// per core by default, as Swift's cooperative pool.
    public var executorThreads = ProcessInfo.processInfo.activeProcessorCount
    public var logLevel = "warning"
    /// TasksServer only: seconds a client may keep the server waiting, on a response it does
    /// not take or a request body it does not send, before it is disconnected (and the
    /// database reader a streamed response holds is given back).
    public var clientTimeout = 10.0
    /// TasksServer only: seconds a request waits for a free database reader before it is
    /// answered 503 (every reader busy: slow clients streaming large results).
    public var readerWait = 5.0
    /// TasksServer only: seconds SIGTERM/SIGINT waits for requests in progress before they
    /// are cancelled.
    public var shutdownGrace = 10.0
    /// TasksServer only: origins browsers may call from (CORS); `*` for any; none by default.
    public var corsOrigins: [String] = []
    /// TasksServer only: most connections open at once (nil: what the file descriptor
    /// limit leaves after the database's and the server's own).
    public var maxConnections: Int?

    public static let usage = """
        options:
          --port N        TCP port (0: any free port; the bound port is printed)   [8080]
          --host ADDR     address to listen on                                      [127.0.0.1]
          --db PATH       SQLite database file (created, WAL mode)                  [tasks.db]
          --sample N      insert N sample tasks when the table is empty             [0]
          --readers N     read-only connections (reads run in parallel)             [4]
          --executor-threads N  (TasksServer) request handlers on N threads of the
                          database pool, reading inline; 0: Swift's pool, reads hop  [cores]
          --log-level L   trace, debug, info, notice, warning, error               [warning]
          --client-timeout S  (TasksServer) disconnect a client that takes no response
                          bytes, or sends no request body bytes, for S seconds, or
                          no whole request head S seconds after its first byte      [10]
          --max-connections N  (TasksServer) connections open at once; past it a new
                          one replaces the longest idle, or is answered 503 [descriptor limit]
          --reader-wait S (TasksServer) answer 503 when no database reader is free
                          within S seconds                                          [5]
          --shutdown-grace S  (TasksServer) on SIGTERM/SIGINT, let requests in progress
                          finish for S seconds, then cancel them                    [10]
          --cors-origin O (TasksServer) allow browser calls from origin O (repeatable;
                          * for any origin)                                         [none]
        """

    /// Parses `arguments` (without the program name); prints usage and exits 2 on a bad option.
    public init(arguments: [String]) {
        var it = arguments.makeIterator()
        func fail(_ message: String) -> Never {
            Console.error("\(message)\n\(Self.usage)")
            exit(2)
        }
        func value(_ option: String) -> String {
            guard let v = it.next() else { fail("\(option) needs a value") }
            return v
        }
        func seconds(_ option: String) -> Double {
            let v = value(option)
            guard let s = Double(v), s > 0, s <= 86_400 else { fail("\(option): expected seconds from 0 to 86400 (more than 0), got '\(v)'") }
            return s
        }
        func number(_ option: String, _ range: ClosedRange<Int>) -> Int {
            let v = value(option)
            guard let n = Int(v), range.contains(n) else { fail("\(option): expected an integer in \(range), got '\(v)'") }
            return n
        }
        while let arg = it.next() {
            switch arg {
            case "--port": port = number(arg, 0...65535)
            case "--host": host = value(arg)
            case "--db": databasePath = value(arg)
            case "--sample": sample = number(arg, 0...100_000_000)
            case "--readers": readers = number(arg, 1...64)
            case "--executor-threads": executorThreads = number(arg, 0...64)
            case "--log-level": logLevel = value(arg)
            case "--client-timeout": clientTimeout = seconds(arg)
            case "--shutdown-grace": shutdownGrace = seconds(arg)
            case "--reader-wait": readerWait = seconds(arg)
            case "--cors-origin": corsOrigins.append(value(arg))
            case "--max-connections": maxConnections = number(arg, 1...1_000_000)
            case "-h", "--help": print(Self.usage); exit(0)
            default: fail("unknown option '\(arg)'")
            }
        }
    }
}
