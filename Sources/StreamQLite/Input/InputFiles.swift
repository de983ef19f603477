import CStreamQLite

/// The paths several entries name: the C expansion of `json_stream` and `csv_stream`
/// (`sq_files_add`, `sq_files.h`): a path is that file; a glob (`*`, `?`, `[`) its matches
/// sorted by name, no match being an error; `\` makes a glob character literal.
func sqExpandFiles(_ entries: [String], error: (String) -> any Error) throws -> [String] {
    var list = sq_files(n: 0, a: nil)
    defer { sq_files_clear(&list) }
    for entry in entries {
        var why: UnsafeMutablePointer<CChar>?
        let rc = sq_files_add(&list, entry, &why)
        if rc != SQ_FILES_OK {
            defer { sqlite3_free(why) }
            throw error(why.map { String(cString: $0) } ?? "out of memory")
        }
    }
    if list.n == 0 { throw error("no file named") }
    return (0..<Int(list.n)).map { String(cString: list.a[$0]!) }
}
