/// The fast paths that read a stored document's bytes, held to their slow twins on one input: the
/// layout-only decoder (``LayoutDecoder``) against `TabBarDocument(decoding:)` and
/// `layout(catalog:)`, the spliced edit (``SplicedEdit``) against decoding, editing and encoding
/// the whole document, and the spliced merge and the part cut from the bytes against merging into
/// and cutting from the decoded document. `tabkeep-fuzz`'s document target runs it on every input,
/// so the bytes libFuzzer's coverage leads to reach the fast paths too, not only the full decoder;
/// the property suites (`LayoutDecoderDifferentialPropertyTests`,
/// `SplicedEditDifferentialPropertyTests`, `SplicedMergeDifferentialPropertyTests`) hold the same
/// over random documents.
///
/// ```swift
/// if let problem = FastPathProbe.disagreement(document: bytes, catalog: catalog, edits: edits) {
///     fatalError(problem)
/// }
/// ```
package enum FastPathProbe {
    /// How the fast paths answered `bytes` differently from the full path, with `catalog` and the
    /// narrow `edits` applied by a fixed replica; nil when they agree. Agreeing means: the layout
    /// decoder accepts exactly the bytes the full decoder accepts, with the same layout; the splice
    /// splices no bytes the full decoder refuses, and where it splices, it gives the full path's
    /// bytes, the dots that left and came, its replica and its error. (A splice may decline, as a
    /// store then takes the full path; it must leave the replica as it was.)
    package static func disagreement(document bytes: [UInt8], catalog: Catalog, edits: [TabBarEdit])
        -> String?
    {
        let full = try? TabBarDocument(decoding: bytes)
        let layout = bytes.withUnsafeBufferPointer { buffer in
            try? LayoutDecoder.layout(decoding: buffer, catalog: catalog)
        }
        if layout != full?.layout(catalog: catalog) {
            return full == nil
                ? "the layout decoder accepts bytes the full decoder refuses"
                : "the layout decoder's layout is not the full path's"
        }
        if let problem = mergeDisagreement(bytes, decoded: full, catalog: catalog, edits: edits) {
            return problem
        }
        // Far past any wall clock, so neither path's stamps depend on when it ran.
        let start = Replica(
            id: ReplicaID(rawValue: 0xF022),
            clock: HybridLogicalClock(last: Stamp(milliseconds: 1 << 46, counter: 0)))
        var fastReplica = start
        let spliced = bytes.withUnsafeBufferPointer { buffer -> Result<SplicedEdit.Outcome?, EditError> in
            do throws(EditError) {
                return .success(try SplicedEdit.apply(edits, to: buffer, catalog: catalog, by: &fastReplica))
            } catch {
                return .failure(error)
            }
        }
        if case .success(nil) = spliced {
            return fastReplica == start ? nil : "a splice that declined changed the replica"
        }
        guard let document = full else { return "the splice edited bytes the full decoder refuses" }
        var edited = document
        var fullReplica = start
        var writer = start
        var fullError: EditError?
        do throws(EditError) {
            for edit in edits { try edited.apply(edit, catalog: catalog, by: &writer) }
            fullReplica = writer
        } catch {
            fullError = error
        }
        guard fastReplica == fullReplica else { return "the splice's replica is not the full path's" }
        switch spliced {
        case .failure(let error):
            return error == fullError ? nil : "the splice's error for \(edits) is not the full path's"
        case .success(.unchanged?):
            return fullError == nil && edited == document
                ? nil : "the splice left unchanged what the full path changed"
        case .success(.spliced(let newBytes, let removed, let added)?):
            guard fullError == nil else { return "the splice edited what the full path refused" }
            guard newBytes == edited.encoded() else { return "the spliced bytes are not the full path's" }
            guard SplicedEdit.dotsChanged(from: document, to: edited) == (removed, added) else {
                return "the splice's dots that left and came are not the two documents' difference"
            }
            return nil
        case .success(nil):
            return nil
        }
    }

    /// How the spliced merge and the part cut from the bytes (``SplicedEdit/merge(_:into:)``,
    /// ``SplicedEdit/part(of:after:)``) answered `bytes` differently from the decoded document
    /// `decoded` (nil: the full decoder refuses them): neither may answer bytes the full decoder
    /// refuses; otherwise a delta of `edits` made by another replica (the entries they wrote, and
    /// the whole edited document) merges into the bytes as into the decoded document, and the
    /// parts a peer lacks after no vector, after half of every replica's sequences and after all
    /// of them are the decoded document's.
    static func mergeDisagreement(
        _ bytes: [UInt8], decoded: TabBarDocument?, catalog: Catalog, edits: [TabBarEdit]
    ) -> String? {
        var peer = Replica(
            id: ReplicaID(rawValue: 0xF023),
            clock: HybridLogicalClock(last: Stamp(milliseconds: 1 << 46, counter: 1)))
        var edited = decoded ?? TabBarDocument()
        for edit in edits { try? edited.apply(edit, catalog: catalog, by: &peer) }
        var seen = VersionVector()
        var half = VersionVector()
        for dot in (decoded ?? TabBarDocument()).dots {
            seen[dot.replica] = max(seen[dot.replica], dot.sequence)
            half[dot.replica] = max(half[dot.replica], dot.sequence / 2)
        }
        return bytes.withUnsafeBufferPointer { buffer -> String? in
            for incoming in [edited.delta(after: seen), edited] {
                let outcome = SplicedEdit.merge(incoming, into: buffer)
                if decoded == nil {
                    if outcome != nil {
                        return "the spliced merge merged into bytes the full decoder refuses"
                    }
                } else if !SplicedEdit.mergeAgrees(buffer, incoming, outcome) {
                    return "the spliced merge is not the full merge"
                }
            }
            for vector in [VersionVector(), half, seen] {
                let part = SplicedEdit.part(of: buffer, after: vector)
                if part != decoded.map({ TabKeepStore.part(of: $0, after: vector) }) {
                    return decoded == nil
                        ? "a part was cut from bytes the full decoder refuses"
                        : "the part cut from the bytes is not the decoded document's"
                }
            }
            return nil
        }
    }
}
