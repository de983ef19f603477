import CStreamQLite
import Foundation

/// A file read in chunks into a ``JSONElementReader``, decompressed when it is gzip or
/// zstd (``InputFile``).
final class JSONFileReader {
    let file: InputFile
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 1)

    init(path: String) throws {
        do { file = try InputFile(path: path) } catch {
            buffer.deallocate()
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path,
                             NSLocalizedDescriptionKey: error.message])
        }
    }

    deinit { buffer.deallocate() }

    /// Reads the next chunk into `reader`; false at the end of the file.
    func read(into reader: JSONElementReader) throws -> Bool {
        let n: Int
        do { n = try file.read(into: buffer.baseAddress!, count: buffer.count) } catch {
            throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: file.path,
                             NSLocalizedDescriptionKey: error.message])
        }
        if n == 0 { return false }
        reader.append(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        return true
    }
}
