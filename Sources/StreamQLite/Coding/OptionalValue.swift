/// A nil `Optional` (bound as SQL NULL, not as the JSON text `null`).
protocol JSONOptionalValue { var isNone: Bool { get } }
extension Optional: JSONOptionalValue { var isNone: Bool { self == nil } }
