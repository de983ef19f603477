import CStreamQLite

extension CSVImportOptions {
    /// These reading options as the C reader's `sq_csv_options` (`sq_csv_ingest.h`),
    /// for the one C configuration step, `sq_csv_options_apply`, behind every CSV
    /// reader the library makes (``Database/importCSV(bytes:into:options:progress:)-4lxlc``,
    /// ``CSVDecodableCursor``, ``CSVRowCursor``).
    ///
    /// The NULL marker's bytes are valid only during `body`. `maxField` 0 keeps the
    /// reader's default field limit.
    func withCOptions<R>(maxField: Int = 0, _ body: (inout sq_csv_options) throws -> R) rethrows -> R {
        var o = sq_csv_options()
        sq_csv_options_init(&o)
        o.header = header ? 1 : 0
        o.delimiter = Int32(delimiter.value)
        o.quote = Int32(quote?.value ?? 0)
        o.empty_string = emptyIsNull ? 0 : 1
        o.pad_short = padShortRecords ? 1 : 0
        o.max_field = maxField
        // the markers NUL-separated (`sq_csv_set_null`); empty ones (the empty field's rule) left out
        let markers = ((nullText.map { [$0] } ?? []) + nullTexts).filter { !$0.isEmpty && !$0.utf8.contains(0) }
        guard !markers.isEmpty else { return try body(&o) }
        var null = markers.joined(separator: "\u{0}")
        return try null.withUTF8 { p in
            try p.withMemoryRebound(to: CChar.self) { c in
                o.null_text = c.baseAddress
                o.null_len = c.count
                return try body(&o)
            }
        }
    }
}
