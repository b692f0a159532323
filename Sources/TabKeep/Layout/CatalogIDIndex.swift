/// A catalog's tab ids as UTF-8 bytes in byte order, each with its catalog index: what
/// ``LayoutDecoder`` matches a document's tab id bytes against, so it makes no `String`.
///
/// Built once per catalog (in `Catalog.init`), so a launch read pays nothing for it.
struct CatalogIDIndex: Sendable {
    /// Every id's bytes, one after another, in byte order of the ids.
    let bytes: [UInt8]
    /// Where each id starts in `bytes`, then where the last one ends (one more element than ids).
    let starts: [Int]
    /// The catalog index of each id, in the same order.
    let indices: [Int]

    /// The index of `tabs`, whose indices in byte order of their ids are `sorted`.
    init(tabs: [Catalog.Tab], sorted: [Int]) {
        var bytes: [UInt8] = []
        var starts: [Int] = [0]
        starts.reserveCapacity(sorted.count + 1)
        for index in sorted {
            bytes.append(contentsOf: tabs[index].id.rawValue.utf8)
            starts.append(bytes.count)
        }
        self.bytes = bytes
        self.starts = starts
        self.indices = sorted
    }

    /// The number of ids.
    var count: Int { indices.count }
}
