#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lines to standard output and standard error that never stop the process: a write that
/// fails (a full disk, a closed pipe) is dropped. `FileHandle.write` ends the process on a
/// failed write (SIGILL), so a server whose log sits on a full disk would die on its next
/// line; here it goes on and exits as it means to.
public enum Console {
    /// `line` and a newline to standard output.
    public static func out(_ line: String) { write(line + "\n", to: STDOUT_FILENO) }
    /// `line` and a newline to standard error.
    public static func error(_ line: String) { write(line + "\n", to: STDERR_FILENO) }

    static func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var p = bytes.baseAddress
            var left = bytes.count
            while left > 0, let start = p {
                let n = Glibc.write(fd, start, left)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }        // dropped: nothing useful to do with a failed log write
                p = start + n
                left -= n
            }
        }
    }
}
