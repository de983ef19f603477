import Foundation

/// What the tool asks of the terminal: whether a stream is one, and how wide it is.
enum Terminal {
    /// True when `descriptor` is a terminal (not a pipe or a file).
    static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    /// The width of the terminal on `descriptor` in columns, or nil when it is not a terminal.
    static func width(_ descriptor: Int32) -> Int? {
        var size = winsize()
        guard isTerminal(descriptor), ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Writes `text` to standard error, unbuffered. A write that fails (a full disk, a closed
    /// pipe) is dropped: `FileHandle.write` would end the tool (SIGILL) in the middle of an
    /// import whose progress or messages cannot be written.
    static func error(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var p = bytes.baseAddress
            var left = bytes.count
            while left > 0, let start = p {
                let n = write(STDERR_FILENO, start, left)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                p = start + n
                left -= n
            }
        }
    }
}
