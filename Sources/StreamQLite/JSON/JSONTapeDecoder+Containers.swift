import CStreamQLite
import Foundation

extension JSONTapeDecoder {
    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if _slowPath(expired) { throw expiredError() }
        let i = current
        guard i >= 0 else { throw missingValue([String: Any].self) }
        let t = tokens[i]
        guard t.kind == JSONKind.object else {
            if t.kind == JSONKind.null {
                throw DecodingError.valueNotFound([String: Any].self, .init(
                    codingPath: path(to: i), debugDescription: "Cannot get keyed decoding container -- found null value instead (\(location(of: i)))"))
            }
            throw mismatch([String: Any].self, at: i)
        }
        return keyedContainer(Key.self, object: i, end: Int(t.length))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        if _slowPath(expired) { throw expiredError() }
        let i = current
        guard i >= 0 else { throw missingValue([Any].self) }
        let t = tokens[i]
        guard t.kind == JSONKind.array else {
            if t.kind == JSONKind.null {
                throw DecodingError.valueNotFound([Any].self, .init(
                    codingPath: path(to: i), debugDescription: "Cannot get unkeyed decoding container -- found null value instead (\(location(of: i)))"))
            }
            throw mismatch([Any].self, at: i)
        }
        return JSONUnkeyedContainer(decoder: self, array: i, end: Int(t.length))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        if _slowPath(expired) { throw expiredError() }
        return JSONSingleValueContainer(decoder: self, index: current)
    }

    /// A keyed container for the object at `object`.
    ///
    /// Making one costs a `KeyedDecodingContainer` box and a generic metadata lookup
    /// (about a third of decoding a small object), so the containers of the last key
    /// types at each depth are kept (as closures that captured them, which hand them
    /// out without the lookup) and pointed at the next object — but only when no copy
    /// of one is left (its box is held by the closure alone): a container kept beyond
    /// its `init(from:)` keeps reading its own object. Containers refer to the decoder
    /// and their frame unretained (no reference counting per property): like the
    /// decoder itself, they are valid while the decode call that handed them out runs.
    @inline(__always)
    func keyedContainer<Key: CodingKey>(_ type: Key.Type, object: Int, end: Int) -> KeyedDecodingContainer<Key> {
        let id = ObjectIdentifier(Key.self)
        if _fastPath(depth < slotDepths) {
            let base = slots + depth &* Self.slotsPerDepth
            var k = 0
            while k < Self.slotsPerDepth {
                let slot = base + k
                if slot.pointee.keyType == id && slot.pointee.box._withUnsafeGuaranteedRef({ _getRetainCount($0) }) == 1 {
                    slot.pointee.frame.pointee.object = object
                    slot.pointee.frame.pointee.end = end
                    slot.pointee.frame.pointee.generation = generation
                    hints[depth] = KeyHint(object: object, next: object &+ 1, inOrder: true)
                    return unsafeDowncast(slot.pointee.thunk.takeUnretainedValue(), to: ContainerThunk<KeyedDecodingContainer<Key>>.self).make()
                }
                k &+= 1
            }
        }
        return newKeyedContainer(Key.self, object: object, end: end)
    }

    func newKeyedContainer<Key: CodingKey>(_ type: Key.Type, object: Int, end: Int) -> KeyedDecodingContainer<Key> {
        let frame = UnsafeMutablePointer<JSONObjectFrame>.allocate(capacity: 1)
        frame.initialize(to: JSONObjectFrame(object: object, end: end, depth: depth))
        frame.pointee.generation = generation
        hints[depth] = KeyHint(object: object, next: object + 1, inOrder: true)
        let plain = JSONKeyedContainer<Key>(decoder: Unmanaged.passUnretained(self), frame: frame)
        guard cachesContainers else {
            // A decoder made for one container (a super decoder, a column's nested
            // container): the container may outlive whoever made it, so it keeps it.
            retiredFrames.append(frame)
            return KeyedDecodingContainer(JSONRetainingKeyedContainer(base: plain, owner: self))
        }
        let container = KeyedDecodingContainer(plain)
        if depth >= slotDepths { growSlots() }
        // The slot of this key type, else an empty one, else the first.
        let base = slots + depth * Self.slotsPerDepth
        let id = ObjectIdentifier(Key.self)
        var k = (0..<Self.slotsPerDepth).first { base[$0].keyType == id } ?? (0..<Self.slotsPerDepth).first { base[$0].keyType == nil } ?? 0
        if k < 0 { k = 0 }
        release(base + k)
        (base + k).pointee = JSONContainerSlot(
            keyType: id, thunk: Unmanaged.passRetained(ContainerThunk(holding: container)),
            box: Unmanaged.passUnretained(unsafeBitCast(container, to: AnyObject.self)), frame: frame)
        return container
    }

    /// Empties a slot; its frame is kept if a copy of its container may still read it.
    func release(_ slot: UnsafeMutablePointer<JSONContainerSlot>) {
        guard slot.pointee.keyType != nil else { return }
        let alone = slot.pointee.box._withUnsafeGuaranteedRef({ _getRetainCount($0) }) == 1
        slot.pointee.thunk.release()
        if alone { slot.pointee.frame.pointee.freeNames(); slot.pointee.frame.deallocate() } else { retiredFrames.append(slot.pointee.frame) }
        slot.pointee.keyType = nil
    }

    func growSlots() {
        let depths = max(slotDepths * 2, depth + 1, 4)
        let grown = UnsafeMutablePointer<JSONContainerSlot>.allocate(capacity: depths * Self.slotsPerDepth)
        if slotDepths > 0 { grown.moveInitialize(from: slots, count: slotDepths * Self.slotsPerDepth) }
        (grown + slotDepths * Self.slotsPerDepth).initialize(repeating: JSONContainerSlot(), count: (depths - slotDepths) * Self.slotsPerDepth)
        slots.deallocate()
        slots = grown
        slotDepths = depths
    }

    /// Frees the kept containers' frames (at the end of a decode; the decoder stays usable).
    func releaseContainers() {
        for i in 0..<(slotDepths * Self.slotsPerDepth) { release(slots + i) }
        for f in retiredFrames { f.pointee.freeNames(); f.deallocate() }
        retiredFrames.removeAll()
    }

    /// The error for a value that is not there (a `superDecoder` of a missing key reads as null).
    func missingValue(_ type: Any.Type) -> DecodingError {
        .valueNotFound(type, .init(codingPath: basePath, debugDescription: "Cannot get value of type \(type) -- found null value instead"))
    }

    /// A decoder for the value at `i` (-1: a missing key) whose coding path is `path` (superDecoder).
    func decoder(for i: Int, path: [any CodingKey]) -> JSONTapeDecoder {
        let d = JSONTapeDecoder(tape: tape, input: UnsafeRawBufferPointer(start: input, count: inputCount), options: options)
        d.basePath = path
        d.baseIndex = i
        d.current = i
        d.depth = depth
        d.cachesContainers = false
        adopt(d)
        return d
    }

}

/// A kept keyed container: its key type (nil: an empty slot), its thunk (retained), its
/// box (unretained, to see whether a copy of it is alive) and its frame.
struct JSONContainerSlot {
    var keyType: ObjectIdentifier?
    var thunk: Unmanaged<AnyObject>
    var box: Unmanaged<AnyObject>
    var frame: UnsafeMutablePointer<JSONObjectFrame>
    init() {
        keyType = nil
        thunk = Unmanaged.passUnretained(JSONTape.self as AnyObject)
        box = thunk
        frame = UnsafeMutablePointer(bitPattern: 8)!
    }
    init(keyType: ObjectIdentifier, thunk: Unmanaged<AnyObject>, box: Unmanaged<AnyObject>, frame: UnsafeMutablePointer<JSONObjectFrame>) {
        self.keyType = keyType
        self.thunk = thunk
        self.box = box
        self.frame = frame
    }
}
