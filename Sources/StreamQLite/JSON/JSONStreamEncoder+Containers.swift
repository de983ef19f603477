import CStreamQLite
import Foundation

extension JSONStreamEncoder {
    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        switch slot {
        case .empty:
            let id = openObject(Key.self, rawKeys: slotRawKeys)
            slot = .container(id: id, object: true)
            return keyedContainer(Key.self, id: id)
        case .container(let id, true) where out.depth(of: id) != nil:
            return keyedContainer(Key.self, id: id)
        default:
            restart = true
            return keyedContainer(Key.self, id: 0)
        }
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        switch slot {
        case .empty:
            let id = out.open(object: false)
            slot = .container(id: id, object: false)
            return JSONStreamUnkeyedContainer(encoder: self, id: id)
        case .container(let id, false) where out.depth(of: id) != nil:
            return JSONStreamUnkeyedContainer(encoder: self, id: id)
        default:
            restart = true
            return JSONStreamUnkeyedContainer(encoder: self, id: 0)
        }
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        JSONStreamSingleValueContainer(encoder: self)
    }

    /// Before a single value: the slot takes exactly one.
    @inline(__always)
    func beginSingle() -> Bool {
        guard slot == .empty else { restart = true; return false }
        slot = .single
        return true
    }
}
