import Testing
@testable import StreamQLite

/// A plan that records which type it was made for.
private struct NamePlan: TypePlan {
    var name = ""
    init() {}
    init<T>(_ type: T.Type) { name = String(reflecting: T.self) }
}

/// Looks up `T`, `[T]`, `[[T]]`, … (`count` types), returning the names the plans hold.
private func lookUpNested<T>(_ type: T.Type, _ count: Int, in table: borrowing TypeTable<NamePlan>, into names: inout [(expected: String, found: String)]) {
    guard count > 0 else { return }
    names.append((String(reflecting: T.self), table.entry(for: T.self).pointee.plan.name))
    lookUpNested([T].self, count - 1, in: table, into: &names)
}

@Suite struct TypeTableTests {
    /// More types than slots: every lookup gives the plan of the type asked for, whether
    /// found, made in an empty slot or made in place of another type's (four taken slots).
    @Test func everyLookupGivesThePlanOfItsTypeWithMoreTypesThanSlots() {
        let table = TypeTable<NamePlan>()
        var names: [(expected: String, found: String)] = []
        for _ in 0..<3 {
            lookUpNested(Int.self, 3 * TypeTable<NamePlan>.slots, in: table, into: &names)
            lookUpNested(String.self, 3 * TypeTable<NamePlan>.slots, in: table, into: &names)
        }
        #expect(names.count == 3 * 2 * 3 * TypeTable<NamePlan>.slots)
        for (expected, found) in names { #expect(found == expected) }
    }

    /// A type met again is found where it was put (its plan is not made again).
    @Test func aTypeMetAgainKeepsItsEntry() {
        let table = TypeTable<NamePlan>()
        let first = table.entry(for: [String: Int].self)
        first.pointee.plan.name = "kept"
        #expect(table.entry(for: [String: Int].self) == first)
        #expect(table.entry(for: [String: Int].self).pointee.plan.name == "kept")
    }
}
