// Thin wrappers for scripts/foundation-oracle/run.sh: Foundation's JSONEncoder/JSONDecoder API in front of
// JSONValueEncoder/JSONValueDecoder. Options StreamQLite lacks throw OracleUnsupported; each one
// made also prints an ORACLE-UNSUPPORTED line, so run.sh counts a test that met one as
// unsupported, never as passed (a test expecting an error would pass on the shim's refusal alone).
import Foundation
import StreamQLite
import Testing

struct OracleUnsupported: Error, CustomStringConvertible {
    var what: String
    init(what: String) {
        self.what = what
        // named by the test running it (output streams interleave out of order)
        print("ORACLE-UNSUPPORTED-IN \(Test.current?.name ?? "?"): \(what)")
        fflush(stdout)
    }
    var description: String { "ORACLE-UNSUPPORTED: \(what)" }
}

open class JSONEncoder: @unchecked Sendable {
    public typealias F = Foundation.JSONEncoder
    public typealias OutputFormatting = F.OutputFormatting
    public typealias KeyEncodingStrategy = F.KeyEncodingStrategy
    public typealias DateEncodingStrategy = F.DateEncodingStrategy
    public typealias DataEncodingStrategy = F.DataEncodingStrategy
    public typealias NonConformingFloatEncodingStrategy = F.NonConformingFloatEncodingStrategy
    open var outputFormatting: OutputFormatting = []
    open var keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys
    open var dateEncodingStrategy: DateEncodingStrategy = .deferredToDate
    open var dataEncodingStrategy: DataEncodingStrategy = .base64
    open var nonConformingFloatEncodingStrategy: NonConformingFloatEncodingStrategy = .throw
    open var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    public init() {}

    func ours() throws -> JSONValueEncoder {
        var e = JSONValueEncoder()
        var f: JSONValueEncoder.OutputFormatting = []
        if outputFormatting.contains(.prettyPrinted) { f.insert(.prettyPrinted) }
        if outputFormatting.contains(.sortedKeys) { f.insert(.sortedKeys) }
        if outputFormatting.contains(.withoutEscapingSlashes) { f.insert(.withoutEscapingSlashes) }
        e.outputFormatting = f
        switch keyEncodingStrategy {
        case .useDefaultKeys: e.keyEncodingStrategy = .useDefaultKeys
        case .convertToSnakeCase: e.keyEncodingStrategy = .convertToSnakeCase
        case .custom(let body): e.keyEncodingStrategy = .custom(body)
        @unknown default: throw OracleUnsupported(what: "keyEncodingStrategy \(keyEncodingStrategy)")
        }
        switch dateEncodingStrategy {
        case .deferredToDate: e.dateEncodingStrategy = .deferredToDate
        case .secondsSince1970: e.dateEncodingStrategy = .secondsSince1970
        case .millisecondsSince1970: e.dateEncodingStrategy = .millisecondsSince1970
        case .iso8601: e.dateEncodingStrategy = .iso8601
        case .custom(let body): e.dateEncodingStrategy = .custom(body)
        default: throw OracleUnsupported(what: "date strategy \(dateEncodingStrategy)")
        }
        switch dataEncodingStrategy {
        case .base64: e.dataEncodingStrategy = .base64
        case .deferredToData: e.dataEncodingStrategy = .deferredToData
        case .custom(let body): e.dataEncodingStrategy = .custom(body)
        default: throw OracleUnsupported(what: "data strategy")
        }
        switch nonConformingFloatEncodingStrategy {
        case .throw: e.nonConformingFloatEncodingStrategy = .throw
        case .convertToString(let a, let b, let c): e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: a, negativeInfinity: b, nan: c)
        }
        e.userInfo = userInfo
        return e
    }

    open func encode<T: Encodable>(_ value: T) throws -> Data { Data(try ours().encode(value)) }
    open func encode<T: EncodableWithConfiguration>(_ value: T, configuration: T.EncodingConfiguration) throws -> Data {
        throw OracleUnsupported(what: "EncodableWithConfiguration")
    }
    open func encode<T, C: EncodingConfigurationProviding>(_ value: T, configuration: C.Type) throws -> Data where T: EncodableWithConfiguration, C.EncodingConfiguration == T.EncodingConfiguration {
        throw OracleUnsupported(what: "EncodableWithConfiguration")
    }
}

open class JSONDecoder: @unchecked Sendable {
    public typealias F = Foundation.JSONDecoder
    public typealias KeyDecodingStrategy = F.KeyDecodingStrategy
    public typealias DateDecodingStrategy = F.DateDecodingStrategy
    public typealias DataDecodingStrategy = F.DataDecodingStrategy
    public typealias NonConformingFloatDecodingStrategy = F.NonConformingFloatDecodingStrategy
    open var keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys
    open var dateDecodingStrategy: DateDecodingStrategy = .deferredToDate
    open var dataDecodingStrategy: DataDecodingStrategy = .base64
    open var nonConformingFloatDecodingStrategy: NonConformingFloatDecodingStrategy = .throw
    open var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    open var allowsJSON5 = false
    open var assumesTopLevelDictionary = false
    public init() {}

    func ours() throws -> JSONValueDecoder {
        if allowsJSON5 { throw OracleUnsupported(what: "allowsJSON5") }
        if assumesTopLevelDictionary { throw OracleUnsupported(what: "assumesTopLevelDictionary") }
        var d = JSONValueDecoder()
        switch keyDecodingStrategy {
        case .useDefaultKeys: d.keyDecodingStrategy = .useDefaultKeys
        case .convertFromSnakeCase: d.keyDecodingStrategy = .convertFromSnakeCase
        case .custom(let body): d.keyDecodingStrategy = .custom(body)
        @unknown default: throw OracleUnsupported(what: "keyDecodingStrategy \(keyDecodingStrategy)")
        }
        switch dateDecodingStrategy {
        case .deferredToDate: d.dateDecodingStrategy = .deferredToDate
        case .secondsSince1970: d.dateDecodingStrategy = .secondsSince1970
        case .millisecondsSince1970: d.dateDecodingStrategy = .millisecondsSince1970
        case .iso8601: d.dateDecodingStrategy = .iso8601
        case .custom(let body): d.dateDecodingStrategy = .custom(body)
        default: throw OracleUnsupported(what: "date strategy \(dateDecodingStrategy)")
        }
        switch dataDecodingStrategy {
        case .base64: d.dataDecodingStrategy = .base64
        case .deferredToData: d.dataDecodingStrategy = .deferredToData
        case .custom(let body): d.dataDecodingStrategy = .custom(body)
        default: throw OracleUnsupported(what: "data strategy")
        }
        switch nonConformingFloatDecodingStrategy {
        case .throw: d.nonConformingFloatDecodingStrategy = .throw
        case .convertFromString(let a, let b, let c): d.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: a, negativeInfinity: b, nan: c)
        }
        d.userInfo = userInfo
        return d
    }

    open func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T { try ours().decode(type, from: data) }
    open func decode<T: DecodableWithConfiguration>(_ type: T.Type, from data: Data, configuration: T.DecodingConfiguration) throws -> T {
        throw OracleUnsupported(what: "DecodableWithConfiguration")
    }
    open func decode<T, C: DecodingConfigurationProviding>(_ type: T.Type, from data: Data, configuration: C.Type) throws -> T where T: DecodableWithConfiguration, C.DecodingConfiguration == T.DecodingConfiguration {
        throw OracleUnsupported(what: "DecodableWithConfiguration")
    }
}

func testData(forResource resource: String, withExtension ext: String, subdirectory: String? = nil) throws -> Data {
    throw OracleUnsupported(what: "test resources")
}
