import CSQLite
import Dispatch
import Foundation
import StreamQLite

/// Ctrl-C during an `import`: SIGINT is caught (not fatal) and every statement of the
/// connection stops from then on with `SQLITE_INTERRUPT`, so the import fails and its
/// transaction is rolled back; and no commit succeeds any more, so nothing is stored
/// whatever runs after the interruption.
///
/// `sqlite3_interrupt` alone would not do: it stops the statement running at that moment,
/// and most of an import is spent reading and parsing between two `INSERT`s. A progress
/// handler (every 1000 virtual-machine instructions) that answers "stop" once the signal
/// came also stops the next `INSERT`. An interrupted write makes SQLite roll back the whole
/// transaction itself: a statement run after that would run in autocommit mode, and the
/// commit hook turns its commit into a rollback (a short statement may end before the
/// progress handler is asked).
final class ImportInterruption: @unchecked Sendable {
    private let lock = NSLock()
    private var signalled = false
    private let source: any DispatchSourceSignal
    private let handle: OpaquePointer?
    private var removed = false

    init(_ db: Database) {
        handle = db.sqliteHandle
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        let interrupt = db.interruptHandle
        source.setEventHandler { [unowned self] in
            let again = lock.withLock { () -> Bool in
                defer { signalled = true }
                return signalled
            }
            if again { Self.stopNow() }
            interrupt.interrupt()
        }
        source.resume()
        sqlite3_progress_handler(handle, 1000, { context in
            Unmanaged<ImportInterruption>.fromOpaque(context!).takeUnretainedValue().requested ? 1 : 0
        }, Unmanaged.passUnretained(self).toOpaque())
        sqlite3_commit_hook(handle, { context in
            Unmanaged<ImportInterruption>.fromOpaque(context!).takeUnretainedValue().requested ? 1 : 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// A second Ctrl-C, when the first has not stopped the import (a read waiting on a pipe
    /// or FIFO that sends nothing runs no statement): the process ends at once (status 130). Nothing was
    /// committed; the rollback journal undoes the import when the database is next opened.
    private static func stopNow() -> Never {
        Terminal.error("\nstreamqlite import: interrupted twice: stopped; nothing was stored (the journal undoes the import when the database is next opened)\n")
        exit(130)
    }

    /// True once Ctrl-C was pressed.
    var requested: Bool { lock.withLock { signalled } }

    /// Takes the handlers off (before the connection closes); SIGINT ends the process again.
    func remove() {
        guard !removed else { return }
        removed = true
        sqlite3_progress_handler(handle, 0, nil, nil)
        sqlite3_commit_hook(handle, nil, nil)
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
