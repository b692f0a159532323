extension Entry {
    /// Last writer wins: whether `self` beats `other` for the same key.
    ///
    /// Compares (stamp, origin), then dot, then the value's bytes, so the order is total and
    /// every replica picks the same winner.
    func beats(_ other: Entry) -> Bool {
        if stamp != other.stamp { return stamp > other.stamp }
        if origin != other.origin { return origin > other.origin }
        if dot != other.dot { return dot > other.dot }
        var mine = ByteWriter()
        mine.value(value)
        var theirs = ByteWriter()
        theirs.value(other.value)
        return theirs.withWritten { theirs in mine.withWritten { theirs.lexicographicallyPrecedes($0) } }
    }
}
