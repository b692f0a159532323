// tabkeep-fuzz: fuzz targets for the four decoders that take outside bytes (see Docs/Guarantees.md, "Fuzzing").

import Foundation
import TabKeep
import TabKeepDump
import TabKeepS3
import TabKeepSync

#if FUZZING
    import Synchronization
#endif

/// One decoder under fuzzing. Each must refuse bad bytes with an error, never trap, and what it
/// accepts must survive a round trip through its encoder.
enum FuzzTarget: String, CaseIterable {
    /// `TabBarDocument(decoding:)`: the LMDB value of every document, and sync payloads; and the
    /// fast paths that read those bytes, which must answer as it does (`FastPathProbe`).
    case document
    /// `DumpReader`: the JSON Lines dump that `restore` reads.
    case dump
    /// `SyncMessage(decoding:)`: what arrives from peers and sync folders.
    case message
    /// TabKeepS3's `ListObjectsV2` parser: what an object store answers to a list.
    case list

    /// Runs the target on one input; returns whether the decoder accepted it.
    @discardableResult
    func run(_ bytes: [UInt8]) -> Bool {
        switch self {
        case .document:
            for edits in FuzzTarget.narrowEdits {
                if let problem = FastPathProbe.disagreement(
                    document: bytes, catalog: FuzzTarget.catalog, edits: edits)
                {
                    preconditionFailure("a fast path disagrees with its slow twin: \(problem)")
                }
            }
            guard let document = try? TabBarDocument(decoding: bytes) else { return false }
            precondition(document.problems().isEmpty, "an accepted document breaks its invariants")
            let again = try? TabBarDocument(decoding: document.encoded())
            precondition(again == document, "an accepted document does not round-trip")
            return true
        case .dump:
            let path = FuzzTarget.scratchPath
            guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
                fatalError("cannot write \(path)")
            }
            guard let summary = try? DumpReader.check(path: path) else { return false }
            precondition(summary.bytes == bytes.count, "an accepted dump was not read to its end")
            DumpRoundTrip.check(path)
            return true
        case .message:
            guard let message = try? SyncMessage(decoding: bytes) else { return false }
            let again = try? SyncMessage(decoding: message.encoded())
            precondition(again == message, "an accepted message does not round-trip")
            return true
        case .list:
            guard let page = try? S3XML.listPage(bytes) else { return false }
            precondition(
                page.objects.count <= S3XML.maxObjectsPerPage, "an accepted page exceeds the object cap")
            precondition(
                page.objects.allSatisfy { !$0.key.isEmpty && $0.size >= 0 },
                "an accepted page has an empty key or a negative size")
            precondition(
                page.continuationToken.map { !$0.isEmpty } ?? true, "an accepted page has an empty token")
            return true
        }
    }

    /// The catalog the seed corpus's documents were written with (``SeedCorpus``).
    static let catalog = try! Catalog(
        ["home", "inbox", "search", "library", "settings", "help"].map { try! TabID($0) })

    /// Narrow edits the document target splices into every input (and applies in full, to compare):
    /// a badge, a flag and a text, a clear, and two the full path refuses (a negative count, a tab
    /// the catalog lacks).
    static let narrowEdits: [[TabBarEdit]] = {
        let (home, inbox, search, settings, help) =
            (
                try! TabID("home"), try! TabID("inbox"), try! TabID("search"), try! TabID("settings"),
                try! TabID("help")
            )
        return [
            [.addToBadge(inbox, 2)],
            [.setHidden(search, true), .setBadgeText(home, "n")],
            [.clearBadge(inbox), .setCustomizableFlag(settings, false), .addToBadge(inbox, -1)],
            [.setBadge(help, -1)],
            [.addToBadge(try! TabID("elsewhere"), 1)],
        ]
    }()

    /// The dump parser reads files: each input goes to this process's own scratch file.
    static let scratchPath =
        FileManager.default.temporaryDirectory.path
        + "/tabkeep-fuzz-\(ProcessInfo.processInfo.processIdentifier).tkdump"
}

/// An accepted dump restores to a store that dumps the same lines, and that dump restores to the
/// same documents: the dump's round trip, through the public restore and dump.
enum DumpRoundTrip {
    private static let first = scratchStore("first")
    private static let second = scratchStore("second")

    static func check(_ path: String) {
        do {
            let restored = try documents(restoring: path, into: first)
            let again = FuzzTarget.scratchPath + ".again"
            // Dumped again in the input's format version (version 1 inputs as version 2, the
            // oldest written), so the lines can be compared.
            let version = try DumpReader(path: path).version >= 3 ? 3 : 2
            let lines = try body(of: first, version: version)
            // Mutations cannot forge the CRC, so what is accepted is a dump as the tool writes it.
            let input = Array(
                try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))).split(separator: 0x0A))
            precondition(
                Array(input.dropFirst().dropLast()) == lines, "a restored dump dumps other lines than it was")
            try Data(try dumpBytes(of: first, version: version)).write(to: URL(fileURLWithPath: again))
            defer { try? FileManager.default.removeItem(atPath: again) }
            let restoredAgain = try documents(restoring: again, into: second)
            precondition(
                restoredAgain == restored, "a restored dump, dumped and restored again, holds other documents"
            )
            let linesAgain = try body(of: second, version: version)
            precondition(linesAgain == lines, "a restored dump dumps other lines the second time")
        } catch {
            preconditionFailure("an accepted dump does not round-trip: \(error)")
        }
    }

    private static func scratchStore(_ name: String) -> TabKeepStore {
        let path = FuzzTarget.scratchPath + "-store-" + name
        try? FileManager.default.removeItem(atPath: path)
        return try! TabKeepStore(path: path, options: .init(durability: .deferred))
    }

    private static func documents(restoring path: String, into store: TabKeepStore) throws -> [String:
        TabBarDocument]
    {
        _ = try store.restore(fromDumpAt: path, mode: .replace)
        var documents: [String: TabBarDocument] = [:]
        try store.forEachDocument { key, result in documents["\(key.profile) \(key.bar)"] = try result.get() }
        return documents
    }

    private static func dumpBytes(of store: TabKeepStore, version: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try store.dump(formatVersion: version) { bytes += $0 }
        return bytes
    }

    /// The lines between the header and the trailer (those name the store and the time).
    private static func body(of store: TabKeepStore, version: Int) throws -> [ArraySlice<UInt8>] {
        Array(try dumpBytes(of: store, version: version).split(separator: 0x0A).dropFirst().dropLast())
    }

    /// Removes the scratch stores (the runner calls it on exit).
    static func removeScratch() {
        for name in ["first", "second"] {
            try? FileManager.default.removeItem(atPath: FuzzTarget.scratchPath + "-store-" + name)
        }
    }
}

#if FUZZING
    /// Inputs run and inputs accepted, printed at exit so a run shows that it reached the round trips.
    private let tally = Mutex<(runs: Int, accepted: Int)>((0, 0))

    /// libFuzzer's entry point; the target comes from `TABKEEP_FUZZ_TARGET` (document, dump, message, list).
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        let accepted = fuzzTarget.run(bytes)
        let first = tally.withLock { tally in
            tally.runs += 1
            if accepted { tally.accepted += 1 }
            return tally.runs == 1
        }
        // libFuzzer ends a bounded run with exit(): report there.
        if first {
            atexit {
                let (runs, accepted) = tally.withLock { ($0.runs, $0.accepted) }
                FileHandle.standardError.write(
                    Data("tabkeep-fuzz: accepted \(accepted) of \(runs) inputs\n".utf8))
                try? FileManager.default.removeItem(atPath: FuzzTarget.scratchPath)
                DumpRoundTrip.removeScratch()
            }
        }
        return 0
    }

    /// SwiftPM links executables with `main` aliased to `tabkeep_fuzz_main`; hand it to libFuzzer.
    @_cdecl("tabkeep_fuzz_main")
    public func fuzzMain(
        _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    ) -> Int32 {
        var count = argc
        var vector = argv
        return runFuzzerDriver(&count, &vector, fuzzOneInput)
    }

    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32

    private let fuzzTarget: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["TABKEEP_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            fatalError("set TABKEEP_FUZZ_TARGET to document, dump, message or list")
        }
        return target
    }()
#endif
