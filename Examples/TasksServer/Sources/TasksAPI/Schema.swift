import Foundation

/// The one table both servers use. `created_at` holds StreamQLite's date text
/// (`2024-05-01 12:00:00.250`, UTC; GRDB writes dates the same way).
public enum TasksSchema {
    public static let sql = """
        CREATE TABLE IF NOT EXISTS tasks(
          id INTEGER PRIMARY KEY,
          title TEXT NOT NULL CHECK (typeof(title) = 'text' AND length(title) > 0),
          done INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)),
          created_at TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS tasks_done ON tasks(done, id);
        """

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
