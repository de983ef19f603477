extension JSONValueDecoder {
    /// Where the values are in a JSON document: read by the element streams
    /// (``JSONValueDecoder/elements(of:in:layout:)-(_,[UInt8],_)``) and by imports
    /// (``JSONImportOptions/layout``, whose ``JSONImportOptions/Layout`` it is).
    public enum Layout: Sendable, Equatable {
        /// The document is an array of objects: `[{"id":1}, {"id":2}]`.
        case array
        /// Newline-delimited JSON: one object per line (blank lines allowed).
        case ndjson
        /// The array of objects found by following object keys from the top:
        /// `.arrayAt(["data", "tasks"])` reads `{"data": {"tasks": [ … ]}}`;
        /// everything else in the document is parsed (validated) and skipped. If
        /// keys repeat, every array found at the path is read.
        case arrayAt([String])
    }
}
