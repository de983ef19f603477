@_exported import StreamQLite

/// Writes ``StreamQLite/RowDecodable`` and ``StreamQLite/RowEncodable`` for a struct:
/// `init(row:)` reads one column per stored property by name, `bind(to:)` binds them in
/// the order of `databaseColumns`.
///
/// ```swift
/// import StreamQLiteMacros
///
/// @RowCodable
/// struct Todo {
///     var id: Int
///     var title: String
///     var done: Bool
///     var note: String?        // a missing column or NULL reads as nil
/// }
/// let todos = try db.rows(Todo.self, "SELECT * FROM tasks").collect()
/// ```
///
/// The values and errors are those of the `Decodable` path (`rows(T.self, …)` with a
/// synthesized `init(from:)`) on the same rows: a `CodingKeys` enum is honoured (its raw
/// values are the column names; properties without a case are not columns), a property
/// that is not a ``StreamQLite/DatabaseValueConvertible`` (a nested struct, array,
/// dictionary) is read from its column's JSON text. `columns: .snakeCase` names the
/// columns `first_name` for `firstName` (explicit `CodingKeys` raw values are kept).
/// A property without a type annotation, or of a tuple or function type, is a
/// compile-time error naming it.
///
/// `bind(to:)` binds ``StreamQLite/DatabaseValueConvertible`` values only: for a struct
/// with nested values write `@RowCodable(encodable: false)` (reading only) and insert it
/// through `Encodable`.
///
/// `json: true` also writes ``StreamQLite/JSONDecodable`` and ``StreamQLite/JSONEncodable``
/// for a `Codable` struct (``StreamQLite/JSONValueDecoder`` and ``StreamQLite/JSONValueEncoder``
/// then read and write it by hand): one member per coding key, named as `Codable` names it
/// (`columns:` does not apply), optionals with `decodeIfPresent`/`encodeIfPresent` — the
/// values, bytes and errors of the synthesized `Codable`. See docs/swift/macro.md.
///
/// Declared only with the package trait "Macros" (`traits: ["Macros"]` on the dependency),
/// which builds swift-syntax; without it this module is `StreamQLite` alone.
#if Macros
@attached(extension, conformances: RowDecodable, RowEncodable, JSONDecodable, JSONEncodable,
          names: named(init(row:)), named(databaseColumns), named(bind(to:)), named(init(json:)), named(encode(json:)))
public macro RowCodable(columns: RowColumnNaming = .propertyNames, encodable: Bool = true, json: Bool = false) =
    #externalMacro(module: "StreamQLiteMacrosPlugin", type: "RowCodableMacro")
#endif
