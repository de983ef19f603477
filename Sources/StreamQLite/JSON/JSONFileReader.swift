import CStreamQLite
import Foundation

/// A file read in chunks into a ``JSONElementReader``.
final class JSONFileReader {
    let fd: Int32
    let path: String
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 1)

    init(path: String) throws {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path,
                             NSLocalizedDescriptionKey: "cannot open \(path): \(String(cString: strerror(code)))"])
        }
    }

    deinit {
        close(fd)
        buffer.deallocate()
    }

    /// Reads the next chunk into `reader`; false at the end of the file.
    func read(into reader: JSONElementReader) throws -> Bool {
        while true {
            let n = Foundation.read(fd, buffer.baseAddress, buffer.count)
            if n > 0 {
                reader.append(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                return true
            }
            if n == 0 { return false }
            if errno == EINTR { continue }
            let code = errno
            throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: path,
                             NSLocalizedDescriptionKey: "cannot read \(path): \(String(cString: strerror(code)))"])
        }
    }
}
