import Foundation

/// The one table both servers use. `created_at` holds StreamQLite's date text
/// (`2024-05-01 12:00:00.250`, UTC; GRDB writes dates the same way). `sort_order` is the
/// API's `order` (the Todo-Backend field: the client's own sort key; `order` is an SQL keyword).
///
/// `AUTOINCREMENT`: an id is never given out twice, even after the newest task was deleted,
/// so a client's retried `DELETE /tasks/N` cannot remove another client's new task.
public enum TasksSchema {
    /// The columns of `tasks`.
    static let columns = """
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          title TEXT NOT NULL CHECK (typeof(title) = 'text' AND length(title) > 0),
          done INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)),
          created_at TEXT NOT NULL,
          sort_order INTEGER NOT NULL DEFAULT 0 CHECK (typeof(sort_order) = 'integer')
        """

    public static let sql = """
        CREATE TABLE IF NOT EXISTS tasks(
        \(columns)
        );
        CREATE INDEX IF NOT EXISTS tasks_done ON tasks(done, id);
        """

    /// Rebuilds a `tasks` table made by an earlier version: before ids were `AUTOINCREMENT`,
    /// or before `sort_order` (same rows, same ids, `order` 0). The highest id ever given
    /// (`sqlite_sequence`, when the old table had one) carries over, so ids are never reused
    /// above it, nor above the largest id the table held; ``sql`` then adds the index. Run
    /// both in one write transaction.
    public static let migration = """
        CREATE TABLE tasks_rebuilt(
        \(columns)
        );
        INSERT INTO tasks_rebuilt(id, title, done, created_at) SELECT id, title, done, created_at FROM tasks;
        UPDATE sqlite_sequence SET seq = max(seq, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'tasks'), 0))
          WHERE name = 'tasks_rebuilt';
        INSERT INTO sqlite_sequence(name, seq) SELECT 'tasks_rebuilt', seq FROM sqlite_sequence
          WHERE name = 'tasks' AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'tasks_rebuilt');
        DROP TABLE tasks;
        ALTER TABLE tasks_rebuilt RENAME TO tasks;
        """

    /// Whether `sqlText` (the table's `sqlite_schema.sql`) is a table of an earlier version.
    public static func needsMigration(_ sqlText: String) -> Bool {
        !sqlText.contains("AUTOINCREMENT") || !sqlText.contains("sort_order")
    }

    /// WAL: readers never wait for the writer; NORMAL sync is the usual WAL setting.
    public static let pragmas = "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
}

/// `count` sample tasks, the same on every run: titles from a short list (one with
/// non-ASCII letters, one with a quote), every third one done, spread over 26 weeks of 2024.
public func sampleTasks(count: Int) -> some Sequence<NewTask> {
    let titles = ["Buy milk", "Write the weekly report", "Call the plumber", "Café run ☕",
                  "Review \"Q3\" numbers", "Water the plants", "Book train tickets", "Fix the bike"]
    let start = Date(timeIntervalSince1970: 1_704_067_200)  // 2024-01-01 00:00 UTC
    let span = 26.0 * 7 * 86_400
    let step = span / Double(max(count, 1))
    return (0..<count).lazy.map { (i: Int) -> NewTask in
        let offset: Double = step * Double(i) + Double(i % 1000) / 1000
        return NewTask(title: "\(titles[i % titles.count]) #\(i + 1)", done: i % 3 == 0,
                       createdAt: start.addingTimeInterval(offset))
    }
}
