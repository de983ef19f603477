import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import StreamQLite
import TasksAPI

/// A response body that is complete before any byte of it is sent, in bounded memory: up to
/// ``memoryLimit`` bytes in a `ByteBuffer`, beyond that in a temporary file that is unlinked
/// as soon as it is made (nothing to clean up after a crash; the space is freed when the
/// response has been sent or dropped), read back 64 KiB at a time while the client takes it.
///
/// `POST /tasks` builds the stored tasks into one inside its write transaction, so the
/// response is exactly what was committed, and a failure while building it (a full disk)
/// rolls the insert back and is still a proper error response: a 201 is sent only for a
/// committed insert whose whole body is ready. The process holds at most ``memoryLimit``
/// bytes of it, whatever the number of tasks (a 16 MiB request of short tasks makes a
/// ~150 MB response).
struct SpooledBody: ByteSink, Sendable {
    /// Bodies up to this size stay in memory (a POST of a few thousand tasks).
    static let memoryLimit = 1 << 20
    /// Where the file goes (the database's directory: a disk, where `/tmp` may be memory).
    let directory: String
    private var buffer = ByteBuffer()
    private var file: SpoolFile?
    /// The size of the body.
    private(set) var count = 0

    init(directory: String) {
        self.directory = directory
    }

    mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        count += bytes.count
        if let file {
            try file.sink.write(bytes)
        } else if buffer.readableBytes + bytes.count <= Self.memoryLimit {
            buffer.writeBytes(bytes)
        } else {
            let file = try SpoolFile(in: directory)
            try buffer.withUnsafeReadableBytes { try file.sink.write($0) }
            try file.sink.write(bytes)
            buffer = ByteBuffer()
            self.file = file
        }
    }

    /// Writes what the file's buffer holds to the file; call it when the body is complete.
    mutating func flush() throws {
        try file?.sink.flush()
    }

    /// The body as a response with a Content-Length: a client whose connection breaks
    /// mid-body can tell its answer is incomplete.
    func response(_ status: HTTPResponse.Status) -> Response {
        guard let file else { return JSONBody.response(status, buffer) }
        let count = count
        return Response(status: status, headers: JSONBody.headers, body: ResponseBody(contentLength: count) { writer in
            var offset = 0
            while offset < count {
                let chunk = try await file.read(at: offset, count: min(SpoolFile.chunkSize, count - offset))
                offset += chunk.readableBytes
                try await writer.write(chunk)
            }
            try await writer.finish(nil)
        })
    }
}

/// The temporary file of a ``SpooledBody``: written once on the thread that builds the body,
/// then only read (`pread`) after it has been handed to the response, hence `@unchecked`.
/// Closed when the last reference goes.
final class SpoolFile: @unchecked Sendable {
    static let chunkSize = 64 * 1024
    let sink: FileDescriptorSink

    init(in directory: String) throws {
        var template = Array("\(directory)/.tasks-response-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw SpoolError(operation: "create a temporary file in \(directory)", errno: errno) }
        unlink(template)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        sink = FileDescriptorSink(descriptor: fd, ownsDescriptor: true)
    }

    /// `count` bytes from `offset`, read on NIO's blocking-I/O thread pool (never on an event
    /// loop, nor on a thread of Swift's cooperative pool).
    func read(at offset: Int, count: Int) async throws -> ByteBuffer {
        let fd = sink.descriptor
        return try await NIOThreadPool.singleton.runIfActive {
            var buffer = ByteBufferAllocator().buffer(capacity: count)
            while buffer.readableBytes < count {
                let start = offset + buffer.readableBytes, want = count - buffer.readableBytes
                var result = 0
                buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { space in
                    result = pread(fd, space.baseAddress, want, off_t(start))
                    return max(result, 0)
                }
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else { throw SpoolError(operation: "read the response back at byte \(start)", errno: result < 0 ? errno : 0) }
            }
            return buffer
        }
    }
}

/// The temporary file of a response body failed (a full disk…): a fault of the server.
struct SpoolError: Error, CustomStringConvertible {
    var operation: String
    var errno: Int32
    var description: String {
        "could not \(operation): " + (errno == 0 ? "the file is shorter than written" : String(cString: strerror(errno)))
    }
}
