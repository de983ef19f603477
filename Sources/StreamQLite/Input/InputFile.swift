import CSQLite
import CStreamQLite

/// Why a file or compressed input could not be read: the message names the file
/// ("cannot open PATH: …", "cannot read PATH: gzip: truncated: …"); each reader turns it
/// into its own error type.
struct InputReadError: Error {
    var message: String
}

/// A file read through the C reader every path shares (`sq_file.h`): plain, or gzip and
/// zstd decompressed (told by the first bytes), from a regular file, a pipe or a FIFO.
/// Its bytes are the decompressed stream, whose positions the parsers report.
final class InputFile {
    private var file = sq_file()
    let path: String

    init(path: String) throws(InputReadError) {
        self.path = path
        var why: UnsafeMutablePointer<CChar>?
        if sq_file_open(&file, nil, path, &why) != 0 {
            let message = Self.message(why, path: path)
            file.fd = -1
            throw InputReadError(message: message)
        }
    }

    deinit { sq_file_close(&file) }

    /// Reads decompressed bytes into `buffer`: their count, 0 at the end of the input.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(InputReadError) -> Int {
        var rc: Int32 = 0
        var why: UnsafeMutablePointer<CChar>?
        let n = sq_file_read(&file, buffer, count, &rc, &why)
        if n < 0 { throw InputReadError(message: Self.message(why, path: path)) }
        return Int(n)
    }

    /// Bytes read from the file so far (the compressed ones when it is compressed).
    var bytesRead: Int { Int(file.nraw) }

    /// The C reader itself, for a worker thread that reads the file while `body` runs
    /// (nothing else reads it meanwhile).
    func withCFile<R>(_ body: (UnsafeMutablePointer<sq_file>) throws -> R) rethrows -> R {
        try withUnsafeMutablePointer(to: &file, body)
    }

    /// The C reader's message (taken) with the file's name: "cannot open PATH: …",
    /// "cannot read PATH: …".
    private static func message(_ why: UnsafeMutablePointer<CChar>?, path: String) -> String {
        guard let why else { return "cannot read \(path): out of memory" }
        defer { sqlite3_free(why) }
        return message(String(cString: why), path: path)
    }

    /// The C reader's message `m` with the file's name.
    static func message(_ m: String, path: String) -> String {
        for verb in ["cannot open", "cannot read"] where m.hasPrefix(verb + ": ") {
            return "\(verb) \(path): " + m.dropFirst(verb.count + 2)
        }
        return "cannot read \(path): \(m)"
    }
}

/// Input fed in chunks (bytes in memory, an asynchronous sequence of chunks) turned into
/// the decompressed stream by the C decoder (`sq_decompress.h`): gzip and zstd told by
/// the first bytes, plain input passed on as it is.
final class InputDecompressor {
    private let decoder: OpaquePointer
    private let out: UnsafeMutableRawBufferPointer
    private var plain = false
    /// Bytes fed so far (compressed ones when the input is compressed).
    private(set) var bytesIn = 0

    init() throws(InputReadError) {
        guard let d = sq_dz_new(SQ_DZ_AUTO) else { throw InputReadError(message: "out of memory") }
        decoder = d
        out = .allocate(byteCount: 256 * 1024, alignment: 16)
    }

    deinit {
        sq_dz_free(decoder)
        out.deallocate()
    }

    /// Feeds `bytes`; `sink` gets the decompressed bytes they complete (chunks of any size).
    func feed(_ bytes: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        bytesIn += bytes.count
        if plain {
            if !bytes.isEmpty { try sink(bytes) }
            return
        }
        try run(bytes, into: sink)
        if sq_dz_kind(decoder) == SQ_DZ_PLAIN { plain = true }
    }

    /// The input has ended: an error when it ends inside a gzip member or zstd frame;
    /// `sink` gets what is left (a plain input shorter than a magic number).
    func finish(into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        if sq_dz_end(decoder) != SQ_DZ_OK { throw failure() }
        try run(UnsafeRawBufferPointer(start: nil, count: 0), into: sink)
    }

    private func run(_ bytes: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        var position = 0
        var made = 0
        repeat {
            var used = 0
            made = 0
            if sq_dz_run(decoder, bytes.baseAddress.map { $0 + position }, bytes.count - position,
                         &used, out.baseAddress, out.count, &made) != SQ_DZ_OK {
                throw failure()
            }
            position += used
            if made > 0 { try sink(UnsafeRawBufferPointer(rebasing: out[0..<made])) }
        } while position < bytes.count || made == out.count
    }

    private func failure() -> InputReadError {
        InputReadError(message: String(cString: sq_dz_error(decoder)))
    }
}
