import CStreamQLite
import Foundation

extension JSONStreamEncoder {
    // MARK: Encoder

    // Another kind of container than the value's, or one asked for after the stream gave
    // way: the tree's encoder of the value (which reports a misuse).
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if _fastPath(tree == nil) {
            switch slot {
            case .empty:
                let id = openObject(Key.self, rawKeys: slotRawKeys)
                slot = .container(id: id, object: true)
                return keyedContainer(Key.self, id: id)
            case .container(let id, true) where out.depth(of: id) != nil:
                return keyedContainer(Key.self, id: id)
            default:
                break
            }
        }
        return treeSlotEncoder().container(keyedBy: type)
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if _fastPath(tree == nil) {
            switch slot {
            case .empty:
                let id = out.open(object: false)
                slot = .container(id: id, object: false)
                return JSONStreamUnkeyedContainer(encoder: self, id: id)
            case .container(let id, false) where out.depth(of: id) != nil:
                return JSONStreamUnkeyedContainer(encoder: self, id: id)
            default:
                break
            }
        }
        return treeSlotEncoder().unkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        JSONStreamSingleValueContainer(encoder: self)
    }

    /// Before a single value: the slot takes exactly one (false: the tree's single value
    /// container takes it, and reports a second value).
    @inline(__always)
    func beginSingle() -> Bool {
        guard slot == .empty && tree == nil else { return false }
        slot = .single
        return true
    }
}
