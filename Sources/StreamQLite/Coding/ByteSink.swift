import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A destination for a stream of bytes, such as the output of a ``JSONRowWriter``.
///
/// Writers hand over bytes in chunks (a ``JSONRowWriter`` buffers 64 KiB
/// before calling ``write(_:)``); the bytes are only valid during the call.
/// Two sinks ship with the library:
///
/// * `[UInt8]`: a growable in-memory buffer (`write` appends);
/// * ``FileDescriptorSink``: a buffered file descriptor, pipe, socket or `FileHandle`
///   (``FileDescriptorSink/init(fileHandle:bufferSize:)``).
///
/// Any other destination (a network response body, a hash…) is a type of yours with a
/// ``write(_:)`` method:
///
/// ```swift
/// var out: [UInt8] = []
/// try db.writeJSON("SELECT id, title FROM tasks", to: &out)
///
/// struct ByteCounter: ByteSink {
///     var count = 0
///     mutating func write(_ bytes: UnsafeRawBufferPointer) throws { count += bytes.count }
/// }
/// var counter = ByteCounter()
/// try db.writeJSON("SELECT id, title FROM tasks", to: &counter)
/// ```
public protocol ByteSink {
    /// Consumes `bytes`; throws if the sink cannot take them (closed, broken pipe, full disk).
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws
    /// Pushes any bytes the sink buffers itself to their final destination.
    /// The default does nothing.
    mutating func flush() throws
}

extension ByteSink {
    /// Does nothing: the sink keeps no buffer of its own.
    public mutating func flush() throws {}
}

/// A growable in-memory byte buffer: `write` appends.
extension Array: ByteSink where Element == UInt8 {
    /// Appends `bytes` to the array.
    public mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        append(contentsOf: bytes)
    }
}

/// A sink passing each chunk to a closure (``Database/ResultChunks`` sends each one on).
///
/// The chunk is only valid during the call: copy it if you keep it.
struct ClosureSink: ByteSink {
    /// The closure receiving each chunk.
    var body: (UnsafeRawBufferPointer) throws -> Void

    /// Creates a sink calling `body` with each chunk.
    init(_ body: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.body = body
    }

    /// Passes `bytes` to the closure; rethrows its error.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        try body(bytes)
    }
}

extension FileDescriptorSink {
    /// An error from a byte sink.
    public enum WriteError: Error, Equatable, CustomStringConvertible {
        /// The sink was closed with ``FileDescriptorSink/close()`` before this write or flush.
        case closed
        /// A `write(2)` or `close(2)` failed with `errno` (for example `EPIPE`: the reader went away).
        case writeFailed(errno: Int32)

        /// The error as a sentence naming the cause.
        public var description: String {
            switch self {
            case .closed:
                return "byte sink: write to a closed sink"
            case .writeFailed(let code):
                return "byte sink: write failed: \(String(cString: strerror(code))) (errno \(code))"
            }
        }
    }
}

/// A buffered sink writing to a file descriptor (a file, pipe or socket).
///
/// Small writes collect in a buffer (64 KiB by default) that is written out
/// when full, on ``flush()`` and on ``close()``; a write larger than the
/// buffer goes straight to the descriptor. Partial writes and `EINTR` are
/// retried; any other failure throws ``FileDescriptorSink/WriteError/writeFailed(errno:)``,
/// and every write after ``close()`` throws ``FileDescriptorSink/WriteError/closed``.
///
/// A sink that owns its descriptor (``init(descriptor:ownsDescriptor:bufferSize:)``
/// with `ownsDescriptor: true`, or ``init(path:append:bufferSize:)``) closes
/// it on ``close()`` or, without a flush error report, when the sink is
/// released. Call ``close()`` (or ``flush()``) yourself to see write errors.
///
/// Writing to a pipe or socket whose reader has gone away raises `SIGPIPE`,
/// which by default ends the process; servers usually ignore it
/// (`signal(SIGPIPE, SIG_IGN)`), and the write then throws
/// `writeFailed(errno: EPIPE)`.
///
/// It is a class: copies of a `FileDescriptorSink` share one buffer and descriptor.
public final class FileDescriptorSink: ByteSink {
    /// The descriptor written to, or -1 once closed.
    public private(set) var descriptor: Int32
    private let ownsDescriptor: Bool
    private let buffer: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private var count = 0

    /// Wraps an open descriptor. With `ownsDescriptor` the sink closes it.
    public init(descriptor: Int32, ownsDescriptor: Bool = false, bufferSize: Int = 64 * 1024) {
        self.descriptor = descriptor
        self.ownsDescriptor = ownsDescriptor
        self.capacity = max(bufferSize, 1)
        self.buffer = .allocate(capacity: capacity)
    }

    /// Writes to an open `FileHandle` (standard output, a socket, a file); the
    /// handle stays open: closing the sink only flushes.
    public convenience init(fileHandle: FileHandle, bufferSize: Int = 64 * 1024) {
        self.init(descriptor: fileHandle.fileDescriptor, ownsDescriptor: false, bufferSize: bufferSize)
    }

    /// Creates (or truncates, or with `append` appends to) the file at `path`
    /// with mode 0644; the sink owns the descriptor.
    public convenience init(path: String, append: Bool = false, bufferSize: Int = 64 * 1024) throws {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC)
        let fd = open(path, flags, 0o644)
        guard fd >= 0 else { throw FileDescriptorSink.WriteError.writeFailed(errno: errno) }
        self.init(descriptor: fd, ownsDescriptor: true, bufferSize: bufferSize)
    }

    deinit {
        if descriptor >= 0 {
            try? flush()
            if ownsDescriptor { _ = Glibc_close(descriptor) }
        }
        buffer.deallocate()
    }

    /// Buffers `bytes`, writing the buffer out when full.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard descriptor >= 0 else { throw FileDescriptorSink.WriteError.closed }
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let n = bytes.count
        if count + n <= capacity {
            (buffer + count).update(from: base.assumingMemoryBound(to: UInt8.self), count: n)
            count += n
            return
        }
        try flush()
        if n >= capacity {
            try writeAll(base, n)
        } else {
            buffer.update(from: base.assumingMemoryBound(to: UInt8.self), count: n)
            count = n
        }
    }

    /// Writes the buffered bytes to the descriptor.
    public func flush() throws {
        guard descriptor >= 0 else { throw FileDescriptorSink.WriteError.closed }
        if count > 0 {
            let n = count
            count = 0
            try writeAll(UnsafeRawPointer(buffer), n)
        }
    }

    /// Flushes, then closes the descriptor if the sink owns it. Later writes throw ``FileDescriptorSink/WriteError/closed``.
    /// Closing twice is allowed and does nothing.
    public func close() throws {
        guard descriptor >= 0 else { return }
        var failure: Error?
        do { try flush() } catch { failure = error }
        let fd = descriptor
        descriptor = -1
        if ownsDescriptor && Glibc_close(fd) != 0 && failure == nil {
            failure = FileDescriptorSink.WriteError.writeFailed(errno: errno)
        }
        if let failure { throw failure }
    }

    private func writeAll(_ start: UnsafeRawPointer, _ total: Int) throws {
        var p = start
        var left = total
        while left > 0 {
            let w = Glibc_write(descriptor, p, min(left, 1 << 30))
            if w < 0 {
                let e = errno
                if e == EINTR { continue }
                throw FileDescriptorSink.WriteError.writeFailed(errno: e)
            }
            p += w
            left -= w
        }
    }
}

// The platform's write(2)/close(2) under names that do not clash with the sink's methods.
@inline(__always)
private func Glibc_write(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int {
    write(fd, p, n)
}

@inline(__always)
private func Glibc_close(_ fd: Int32) -> Int32 {
    close(fd)
}
