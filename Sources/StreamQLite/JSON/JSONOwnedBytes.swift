extension JSONTapeDecoder {
    /// Points the decoder at its own copy of its input (whole documents), for containers
    /// that keep reading it after the input's owner moved on (a column's text after the step).
    func readOwnCopyOfInput() {
        let copy = copyInput(UnsafeRawBufferPointer(start: input, count: inputCount))
        input = copy.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: UInt8.self)
    }
}

/// Bytes a decoder owns (a copy of a document's text).
final class JSONOwnedBytes {
    let buffer: UnsafeRawBufferPointer
    init(copying bytes: UnsafeRawBufferPointer) {
        let p = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        if let b = bytes.baseAddress, bytes.count > 0 { p.copyMemory(from: b, byteCount: bytes.count) }
        buffer = UnsafeRawBufferPointer(start: p, count: bytes.count)
    }
    deinit { buffer.baseAddress.map { UnsafeMutableRawPointer(mutating: $0).deallocate() } }
}
