import Foundation

/// A few objects kept for reuse across calls, for objects that are costly to set up and
/// cheap to reset (the JSON decoders with their tapes, the JSON encoders with their key
/// tables and buffers): a call on a small document then allocates nearly nothing.
///
/// Thread-safe; an object taken is used by one thread until it is given back.
final class ReusePool<Item: AnyObject>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Item] = []
    /// At most this many are kept.
    let limit: Int

    init(limit: Int = 8) { self.limit = limit }

    /// The most recently given item that `fits`, taken out of the pool; nil when none does.
    func take(where fits: (Item) -> Bool = { _ in true }) -> Item? {
        lock.lock()
        defer { lock.unlock() }
        guard let i = items.lastIndex(where: fits) else { return nil }
        return items.remove(at: i)
    }

    /// Keeps `item` for a later ``take(where:)`` when nothing else refers to it and
    /// `worthKeeping` says so (memory grown large is not kept); `item` is nil afterwards.
    func give(_ item: inout Item?, worthKeeping: (Item) -> Bool) {
        defer { item = nil }
        // Checked before any other reference to it is made here.
        guard item != nil, isKnownUniquelyReferenced(&item) else { return }
        let kept = item!
        guard worthKeeping(kept) else { return }
        lock.lock()
        if items.count < limit { items.append(kept) }
        lock.unlock()
    }
}
