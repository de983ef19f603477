import Testing
import StreamQLite

struct Product: Database.Aggregate {
    var value: Int64 = 1
    mutating func step(_ arguments: Database.FunctionArguments) throws { value *= try arguments[0] as Int64 }
    func finalize() throws -> Int64 { value }
}

@Suite struct FunctionTests {
    @Test func aScalarFunctionReadsTypedArgumentsAndReturnsAValue() throws {
        let db = try Database()
        try db.createFunction("repeat_text", argumentCount: 2, flags: .pure) { args -> String in
            String(repeating: try args[0] as String, count: try args[1] as Int)
        }
        #expect(try db.value(String.self, "SELECT repeat_text('ab', 3)") == "ababab")
    }

    @Test func optionalResultsBecomeNullAndVariadicFunctionsSeeEveryArgument() throws {
        let db = try Database()
        try db.createFunction("first_non_null", argumentCount: -1) { args -> DatabaseValue in
            for i in 0..<args.count where !args.isNull(i) { return args.value(at: i) }
            return .null
        }
        #expect(try db.value(Int.self, "SELECT first_non_null(NULL, NULL, 7, 8)") == 7)
        #expect(try db.value(Int?.self, "SELECT first_non_null(NULL)") == .some(nil))
    }

    @Test func aThrownErrorBecomesAnSQLErrorNamingTheFunctionAndArgument() throws {
        let db = try Database()
        try db.createFunction("twice", argumentCount: 1, flags: .pure) { args -> Int in try args[0] as Int * 2 }
        let error = try #require(throws: DatabaseError.self) { try db.value(Int.self, "SELECT twice('x')") }
        #expect(error.message == "twice: argument 1: expected INTEGER, found TEXT 'x'")
    }

    @Test func anAggregateRunsOncePerGroupAndHandlesEmptyGroups() throws {
        let db = try Database()
        try db.createAggregate("product", argumentCount: 1, flags: .pure, Product.self)
        try db.execute("CREATE TABLE t(g, v); INSERT INTO t VALUES (1, 2), (1, 3), (2, 5)")
        #expect(try db.values(Int.self, "SELECT product(v) FROM t GROUP BY g ORDER BY g").collect() == [6, 5])
        #expect(try db.value(Int.self, "SELECT product(v) FROM t WHERE 0") == 1)
    }

    @Test func directOnlyFunctionsAreRefusedInsideViews() throws {
        let db = try Database()
        try db.createFunction("secret", argumentCount: 0, flags: .directOnly) { _ in 42 }
        #expect(try db.value(Int.self, "SELECT secret()") == 42)
        try db.execute("CREATE VIEW v AS SELECT secret() AS s")
        let error = try #require(throws: DatabaseError.self) { try db.value(Int.self, "SELECT s FROM v") }
        #expect(error.message.contains("unsafe use of secret()"))
    }
}
