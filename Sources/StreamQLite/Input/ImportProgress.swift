/// How far an import (``Database/importCSV(bytes:into:options:progress:)-4lxlc``,
/// ``Database/importJSON(bytes:into:options:progress:)-70bm6`` and their file and async forms)
/// has got: reported after each chunk and at the end.
public struct ImportProgress: Sendable, Equatable {
    /// Bytes of input read so far (of gzip or zstd input: the decompressed bytes).
    public var bytes: Int
    /// Rows read so far (JSON elements, CSV records: the header not counted).
    public var rows: Int
    /// Bytes of the input as read so far: of gzip or zstd input, the compressed bytes;
    /// of plain input, the same as ``bytes``.
    public var compressedBytes: Int
    /// Files read to their end (imports of several files; 0 for one file or bytes).
    public var filesDone: Int

    /// A progress report; `compressedBytes` defaults to `bytes` (plain input).
    public init(bytes: Int, rows: Int, compressedBytes: Int? = nil, filesDone: Int = 0) {
        self.bytes = bytes
        self.rows = rows
        self.compressedBytes = compressedBytes ?? bytes
        self.filesDone = filesDone
    }
}

/// The progress bookkeeping of a chunked import (``JSONImporter``, ``CSVImporter``): the
/// bytes read so far and the callback they are reported to.
struct ImportProgressCounter {
    /// Input bytes fed so far (decompressed).
    var bytes = 0
    /// Bytes of the input as read so far (compressed, when it is): set by the driver.
    var compressedBytes = 0
    /// The import's progress callback.
    let report: ((ImportProgress) -> Void)?

    init(_ report: ((ImportProgress) -> Void)?) { self.report = report }

    /// Reports the bytes so far and `rows`.
    func report(rows: Int) {
        report?(ImportProgress(bytes: bytes, rows: rows, compressedBytes: compressedBytes))
    }
}

