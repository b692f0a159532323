/// What a document says about one catalog tab, as ``LayoutDecoder`` records it: flags as small
/// integers and everything else as offsets into the document's bytes, so recording copies nothing.
struct CompactTabState {
    /// An optional tab of a place that is absent.
    static let none = -1
    /// An optional tab of a place that the catalog does not list.
    static let notInCatalog = -2

    /// The form of the live position, if any.
    var position = PositionForm.unmoved
    /// The value tag of the live badge reset (`secondForm` when it lists sequences).
    var resetTag = ValueTag.removed
    /// The live customizable and hidden flags: -1 unset, else 0 or 1.
    var customizable: Int8 = -1
    var hidden: Int8 = -1
    /// A place's neighbours: catalog indices, ``none`` or ``notInCatalog``.
    var after = CompactTabState.none
    var next = CompactTabState.none
    /// The position key's bytes.
    var key = CompactRange()
    /// Where the live badge text's length prefix starts, or -1.
    var text = -1
    /// Where the live badge reset's value starts, or -1.
    var reset = -1
    /// Where the first of the tab's badge total entries starts, and how many are live.
    var totals = -1
    var totalsCount = 0
}

/// A run of a document's bytes.
struct CompactRange {
    var start = 0
    var count = 0
}

/// The stored selection as ``LayoutDecoder`` records it: none, More, or the tab of `tab`.
struct CompactSelection {
    var code = SelectionCode.noTab
    var tab = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
}

/// Resolves a layout from what ``LayoutDecoder`` recorded, on catalog indices in stack scratch
/// space, by the rules ``ResolvedBar`` resolves a document by (the differential test holds the two
/// to the same result): slots in catalog order with moved tabs in the gaps after them, ordered by
/// key then id; first-format keys by the first format's rule; fixed tabs at their catalog index.
struct CompactResolver {
    /// The catalog's tables.
    let table: CatalogIDIndex
    /// The catalog's id bytes (``CatalogIDIndex/bytes``).
    let ids: UnsafeBufferPointer<UInt8>
    /// The document's bytes, which every offset points into (checked by the decoder already).
    let bytes: UnsafeBufferPointer<UInt8>
    let states: UnsafeBufferPointer<CompactTabState>
    let selection: CompactSelection
    /// Where the clear's badge totals start (at their count), or -1.
    let marks: Int

    init(
        table: CatalogIDIndex, ids: UnsafeBufferPointer<UInt8>, bytes: UnsafeBufferPointer<UInt8>,
        states: UnsafeBufferPointer<CompactTabState>, selection: CompactSelection, marks: Int
    ) {
        self.table = table
        self.ids = ids
        self.bytes = bytes
        self.states = states
        self.selection = selection
        self.marks = marks
    }

    /// The layout: the only heap allocations of a launch read are its arrays and dictionaries.
    func layout() throws(DocumentDecodingError) -> Layout {
        let count = table.tabIDs.count
        let result = withUnsafeTemporaryAllocation(of: Int.self, capacity: max(1, 4 * count)) {
            scratch -> Result<Layout, DocumentDecodingError> in
            let order = UnsafeMutableBufferPointer(rebasing: scratch[0..<count])
            let shown = UnsafeMutableBufferPointer(rebasing: scratch[count..<2 * count])
            let moved = UnsafeMutableBufferPointer(rebasing: scratch[2 * count..<3 * count])
            let gaps = UnsafeMutableBufferPointer(rebasing: scratch[3 * count..<4 * count])
            let orderCount = resolveOrder(into: order, moved: moved, gaps: gaps)
            do throws(DocumentDecodingError) {
                return .success(
                    try layout(
                        order: UnsafeBufferPointer(rebasing: order[..<orderCount]), shown: shown,
                        hidden: moved, badges: gaps))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    // MARK: Order

    /// Writes the resolved order of the non-fixed tabs (catalog indices) into `order`; returns
    /// its length. `moved` and `gaps` are scratch space.
    private func resolveOrder(
        into order: UnsafeMutableBufferPointer<Int>, moved: UnsafeMutableBufferPointer<Int>,
        gaps: UnsafeMutableBufferPointer<Int>
    ) -> Int {
        let movable = table.movable
        var hasFirstFormat = false
        var hasPlace = false
        for index in movable {
            switch states[index].position {
            case .firstFormat: hasFirstFormat = true
            case .place: hasPlace = true
            case .unmoved: break
            }
        }
        if hasFirstFormat && !hasPlace { return firstFormatOrder(into: order, positioned: moved) }
        if hasPlace || hasFirstFormat { return slotOrder(into: order, moved: moved, gaps: gaps) }
        for (slot, index) in movable.enumerated() { order[slot] = index }
        return movable.count
    }

    /// Slots in catalog order: each unmoved tab in its own slot, and after each slot the tabs moved
    /// into its gap, by (key, id). Gap 0 comes before the first slot; first-format keys stand there.
    private func slotOrder(
        into order: UnsafeMutableBufferPointer<Int>, moved: UnsafeMutableBufferPointer<Int>,
        gaps: UnsafeMutableBufferPointer<Int>
    ) -> Int {
        let index = table
        let movable = index.movable
        let slots = index.slots
        func slot(_ tab: Int) -> Int? { tab >= 0 && slots[tab] >= 0 ? slots[tab] : nil }
        // The moved tabs, kept sorted by (gap, key, id) as they are found: they are few.
        var movedCount = 0
        for catalogIndex in movable {
            let state = states[catalogIndex]
            let gap: Int
            switch state.position {
            case .unmoved:
                continue
            case .firstFormat:
                gap = 0
            case .place:
                if state.after == CompactTabState.none {
                    gap = 0
                } else if let after = slot(state.after) {
                    gap = after + 1
                } else if state.next == CompactTabState.none {
                    gap = movable.count
                } else if let next = slot(state.next) {
                    gap = next
                } else {
                    // Neither neighbour exists in this catalog: the tab stays in its slot.
                    continue
                }
            }
            var at = movedCount
            while at > 0 && precedes(gap: gap, catalogIndex, than: gaps[at - 1], moved[at - 1]) {
                moved[at] = moved[at - 1]
                gaps[at] = gaps[at - 1]
                at -= 1
            }
            moved[at] = catalogIndex
            gaps[at] = gap
            movedCount += 1
        }
        var count = 0
        var next = 0
        func emit(gap: Int) {
            while next < movedCount && gaps[next] == gap {
                order[count] = moved[next]
                count += 1
                next += 1
            }
        }
        emit(gap: 0)
        for (slotIndex, catalogIndex) in movable.enumerated() {
            if !isMoved(catalogIndex, moved: UnsafeBufferPointer(rebasing: moved[..<movedCount])) {
                order[count] = catalogIndex
                count += 1
            }
            emit(gap: slotIndex + 1)
        }
        return count
    }

    private func isMoved(_ catalogIndex: Int, moved: UnsafeBufferPointer<Int>) -> Bool {
        moved.contains(catalogIndex)
    }

    /// Whether the tab at `lhs` in gap `gap` comes before the tab at `rhs` in `otherGap`.
    private func precedes(gap: Int, _ lhs: Int, than otherGap: Int, _ rhs: Int) -> Bool {
        if gap != otherGap { return gap < otherGap }
        return precedesByKey(lhs, rhs)
    }

    /// (key, id) order of two positioned tabs.
    private func precedesByKey(_ lhs: Int, _ rhs: Int) -> Bool {
        let left = states[lhs].key
        let right = states[rhs].key
        let order = IdentifierRules.compare(
            UnsafeBufferPointer(rebasing: bytes[left.start..<left.start + left.count]),
            UnsafeBufferPointer(rebasing: bytes[right.start..<right.start + right.count]))
        if order != 0 { return order < 0 }
        let ranks = table.ranks
        return ranks[lhs] < ranks[rhs]
    }

    /// The first format's order: positioned tabs by (key, id); a tab without a position right after
    /// its catalog predecessor (chained), else first.
    private func firstFormatOrder(
        into order: UnsafeMutableBufferPointer<Int>, positioned: UnsafeMutableBufferPointer<Int>
    ) -> Int {
        let movable = table.movable
        var positionedCount = 0
        for slot in movable.indices where states[movable[slot]].position == .firstFormat {
            var at = positionedCount
            while at > 0 && precedesByKey(movable[slot], movable[positioned[at - 1]]) {
                positioned[at] = positioned[at - 1]
                at -= 1
            }
            positioned[at] = slot
            positionedCount += 1
        }
        var count = 0
        func appendFollowers(after slot: Int) {
            var next = slot + 1
            while next < movable.count, states[movable[next]].position == .unmoved {
                order[count] = movable[next]
                count += 1
                next += 1
            }
        }
        appendFollowers(after: -1)
        for item in 0..<positionedCount {
            let slot = positioned[item]
            order[count] = movable[slot]
            count += 1
            appendFollowers(after: slot)
        }
        return count
    }

    // MARK: Layout

    private func isHidden(_ index: Int) -> Bool {
        let traits = table.traits[index]
        guard traits.contains(.hideable) else { return false }
        let flag = states[index].hidden
        return flag >= 0 ? flag == 1 : traits.contains(.hiddenByDefault)
    }

    private func isCustomizable(_ index: Int) -> Bool {
        let traits = table.traits[index]
        if traits.contains(.fixed) { return false }
        let flag = states[index].customizable
        return flag >= 0 ? flag == 1 : traits.contains(.customizableByDefault)
    }

    /// The layout of the resolved `order`: shown and hidden tabs, flags, badges, texts and the
    /// selection packed into a ``CompactLayout``. `shown`, `hidden` and `badges` are scratch space.
    private func layout(
        order: UnsafeBufferPointer<Int>, shown: UnsafeMutableBufferPointer<Int>,
        hidden: UnsafeMutableBufferPointer<Int>, badges: UnsafeMutableBufferPointer<Int>
    ) throws(DocumentDecodingError) -> Layout {
        let tabs = table.tabIDs
        let traits = table.traits
        var shownCount = 0
        var hiddenCount = 0
        for index in order {
            if isHidden(index) {
                hidden[hiddenCount] = index
                hiddenCount += 1
            } else {
                shown[shownCount] = index
                shownCount += 1
            }
        }
        for index in traits.indices where traits[index].contains(.fixed) {
            var at = shownCount
            let target = min(index, shownCount)
            while at > target {
                shown[at] = shown[at - 1]
                at -= 1
            }
            shown[target] = index
            shownCount += 1
        }
        // Badge counts (into `badges`, by slot) and texts' sizes first, to size the bytes exactly.
        var badgeCount = 0
        var textCount = 0
        var textBytes = 0
        for slot in 0..<shownCount {
            let state = states[shown[slot]]
            var count = 0
            if state.totalsCount > 0 || state.reset >= 0 {
                count = Int(max(0, try rawBadgeCount(shown[slot])))
                if count > 0 { badgeCount += 1 }
            }
            badges[slot] = count
            if state.text >= 0 {
                textCount += 1
                textBytes += 2 + text(at: state.text).count
            }
        }
        let size = 2 * shownCount + hiddenCount + CompactLayout.badgeBytes * badgeCount + textBytes
        var selected = CompactLayout.Selected.none
        switch self.selection.code {
        case .more:
            selected = .more
        case .tab:
            if let index = table.catalogIndex(of: self.selection.tab, in: ids), !isHidden(index) {
                selected = .tab(index)
            }
        case .noTab:
            break
        }
        let compact = CompactLayout(
            tabs: tabs, shownCount: shownCount, hiddenCount: hiddenCount, badgeCount: badgeCount,
            textCount: textCount, selected: selected, size: size
        ) { buffer in
            var made = 0
            func put(_ byte: Int) {
                buffer.storeBytes(of: UInt8(byte), toByteOffset: made, as: UInt8.self)
                made += 1
            }
            for slot in 0..<shownCount { put(shown[slot]) }
            for slot in 0..<shownCount { put(isCustomizable(shown[slot]) ? 1 : 0) }
            for slot in 0..<hiddenCount { put(hidden[slot]) }
            for slot in 0..<shownCount where badges[slot] > 0 {
                put(shown[slot])
                buffer.storeBytes(of: Int64(badges[slot]).littleEndian, toByteOffset: made, as: Int64.self)
                made += 8
            }
            for slot in 0..<shownCount where states[shown[slot]].text >= 0 {
                let text = self.text(at: states[shown[slot]].text)
                put(shown[slot])
                put(text.count)
                UnsafeMutableRawBufferPointer(rebasing: buffer[made...]).copyMemory(
                    from: UnsafeRawBufferPointer(text))
                made += text.count
            }
            return made
        }
        return Layout(compact: compact)
    }

    /// The badge text whose length prefix is at `offset`. The decoder checked it: a length of at
    /// most ``Entry/maxBadgeTextBytes`` (64, so one varint byte) and that many bytes in the buffer.
    private func text(at offset: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[(offset + 1)..<(offset + 1 + Int(bytes[offset]))])
    }

    // MARK: Badges

    /// count = reset.count + Σ over replicas with a live total (total − the total it counts from),
    /// as ``ResolvedBar/rawBadgeCount(_:)``.
    private func rawBadgeCount(_ index: Int) throws(DocumentDecodingError) -> Int64 {
        let state = states[index]
        var count: Int64 = 0
        if state.reset >= 0 {
            var reader = ByteReader(bytes)
            reader.offset = state.reset
            count = try reader.signed()
        }
        guard state.totalsCount > 0 else { return count }
        var reader = ByteReader(bytes)
        reader.offset = state.totals
        var live = 0
        while live < state.totalsCount {
            // A badge increments entry: kind, tab, replica, stamp, origin, dot, tag, total.
            _ = try reader.byte()
            _ = try reader.slice(max: TabID.maxBytes, DocumentRefusal.tabID)
            let replica = try reader.fixed64()
            _ = try reader.varint()
            _ = try reader.fixed64()
            _ = try reader.fixed64()
            _ = try reader.varint()
            guard try reader.byte() != 0 else { continue }
            live += 1
            let total = try reader.signed()
            count += total - (try badgeBaseline(index, replica: replica))
        }
        return count
    }

    /// The total `replica`'s increments to the tab at `index` count from, as
    /// ``ResolvedBar/badgeBaseline(_:_:)``: what the live badge set had seen, or what the clear had seen
    /// when that is newer or the set saw none.
    private func badgeBaseline(_ index: Int, replica: UInt64) throws(DocumentDecodingError) -> Int64 {
        let mark = try self.mark(index, replica: replica)
        let state = states[index]
        guard state.reset >= 0 else { return mark?.total ?? 0 }
        var reader = ByteReader(bytes)
        reader.offset = state.reset
        _ = try reader.signed()
        let seenCount = try reader.varint()
        for _ in 0..<seenCount {
            let seenReplica = try reader.fixed64()
            let seen = try reader.signed()
            let sequence = state.resetTag == .secondForm ? try reader.varint() : nil
            guard seenReplica == replica else { continue }
            if let mark, let sequence, mark.sequence > sequence { return mark.total }
            return seen
        }
        return mark?.total ?? 0
    }

    /// The clear's badge total for the tab at `index` and `replica`, with its sequence.
    private func mark(_ index: Int, replica: UInt64) throws(DocumentDecodingError) -> (
        total: Int64, sequence: UInt64
    )? {
        guard marks >= 0 else { return nil }
        let id = table.id(at: table.ranks[index], in: ids)
        var reader = ByteReader(bytes)
        reader.offset = marks
        let count = try reader.varint()
        for _ in 0..<count {
            let tab = try reader.slice(max: TabID.maxBytes, DocumentRefusal.tabID)
            let markReplica = try reader.fixed64()
            let total = try reader.signed()
            let sequence = try reader.varint()
            if markReplica == replica && IdentifierRules.compare(tab, id) == 0 { return (total, sequence) }
        }
        return nil
    }
}
