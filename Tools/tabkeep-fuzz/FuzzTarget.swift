// tabkeep-fuzz: fuzz targets for the three decoders that take outside bytes (see README.md, "Fuzzing").

import Foundation
import TabKeep
import TabKeepDump
import TabKeepSync

/// One decoder under fuzzing. Each must refuse bad bytes with an error, never trap, and what it
/// accepts must survive a round trip through its encoder.
enum FuzzTarget: String, CaseIterable {
    /// `TabBarDocument(decoding:)`: the LMDB value of every document, and sync payloads.
    case document
    /// `DumpReader`: the JSON Lines dump that `restore` reads.
    case dump
    /// `SyncMessage(decoding:)`: what arrives from peers and sync folders.
    case message

    /// Runs the target on one input; returns whether the decoder accepted it.
    @discardableResult
    func run(_ bytes: [UInt8]) -> Bool {
        switch self {
        case .document:
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
            return true
        case .message:
            guard let message = try? SyncMessage(decoding: bytes) else { return false }
            let again = try? SyncMessage(decoding: message.encoded())
            precondition(again == message, "an accepted message does not round-trip")
            return true
        }
    }

    /// The dump parser reads files: each input goes to this process's own scratch file.
    static let scratchPath =
        FileManager.default.temporaryDirectory.path
        + "/tabkeep-fuzz-\(ProcessInfo.processInfo.processIdentifier).tkdump"
}

#if FUZZING
    /// libFuzzer's entry point; the target comes from `TABKEEP_FUZZ_TARGET` (document, dump, message).
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        fuzzTarget.run(bytes)
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
            fatalError("set TABKEEP_FUZZ_TARGET to document, dump or message")
        }
        return target
    }()
#endif
