import Foundation
import LMDBKit
import TabKeep
import TabKeepDump
import TabKeepSync

/// The modes that do one thing and exit: the parent kills them part-way or checks what they say.
enum OneShot {
    /// `restore`: restores a dump (replace) in one transaction; prints `restoring` just before
    /// the call and `restored N` once it returned.
    static func restore(store: String, dump: String) throws -> Int32 {
        let store = try TabKeepStore(path: store)
        // The parent tells a kill inside the call (and its transaction) from one before or after it.
        Line.out("restoring")
        let (summary, _) = try store.restore(fromDumpAt: dump, mode: .replace)
        Line.out("restored \(summary.documents)")
        return 0
    }

    /// `apply`: decodes a sync message and applies it in one transaction, as a session would;
    /// prints `applying` just before the call and `applied N` once it returned.
    static func apply(store: String, message: String) throws -> Int32 {
        let store = try TabKeepStore(path: store)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: message)))
        let message = try SyncMessage(decoding: bytes)
        Line.out("applying")  // as "restoring" above
        let receipt = try SyncSession(store: store).receive(message)
        Line.out("applied \(receipt.changed.count)")
        return 0
    }

    /// `follow`: opens the store, prints `ready N` (the badge of `--profile`, -1 when unset),
    /// then reads it every few milliseconds until it is `--badge`, prints `saw N`, sets it one
    /// higher in an edit and prints `edited N+1`. The store stays open throughout, so another
    /// process's replace restore happens while this one holds it. Gives up after a minute.
    static func follow(store path: String, options: Options) throws -> Int32 {
        let profile = try ProfileID(options.value("profile") ?? "p0")
        let wanted = Int(options.value("badge") ?? "") ?? 0
        let store = try TabKeepStore(path: path)
        func badge() throws -> Int { try store.document(profile).flatMap(Fixture.badge(of:)) ?? -1 }
        Line.out("ready \(try badge())")
        let deadline = Date().addingTimeInterval(60)
        while try badge() != wanted {
            guard Date() < deadline else {
                Line.out("timeout at \(try badge())")
                return 1
            }
            usleep(5_000)
        }
        Line.out("saw \(wanted)")
        try store.edit(profile, catalog: Fixture.catalog, Fixture.edits(setting: wanted + 1))
        Line.out("edited \(wanted + 1)")
        return 0
    }

    /// `hold-reader`: opens a read transaction, says so, and waits inside it to be killed.
    static func holdReader(store: String) throws -> Int32 {
        let store = try TabKeepStore(path: store)
        let waited: Int32 = try store.environment.read { _ in
            Line.out("reading \(getpid())")
            repeat { sleep(60) } while getppid() != 1 || getpid() != 1
            return 1
        }
        return waited
    }

    /// `read-only`: on a store whose filesystem is read-only, reads must work and a write must
    /// fail with a clear error. Prints `read ok` and `write refused: …`; exits 1 otherwise.
    static func readOnly(store path: String, options: Options) throws -> Int32 {
        let profile = try ProfileID(options.value("profile") ?? "p0")
        let expected = Int(options.value("badge") ?? "") ?? -1
        let store = try TabKeepStore(path: path)
        guard let document = try store.document(profile), Fixture.badge(of: document) == expected else {
            Line.out("read wrong: \(profile) does not show \(expected)")
            return 1
        }
        Line.out("read ok")
        do {
            try store.edit(profile, catalog: Fixture.catalog, Fixture.edits(setting: expected + 1))
            Line.out("write accepted")
            return 1
        } catch {
            Line.out("write refused: \(error)")
        }
        guard let again = try store.document(profile), Fixture.badge(of: again) == expected else {
            Line.out("read wrong after the refused write")
            return 1
        }
        return 0
    }

    /// `fill-disk`: on a small filesystem, writes new profiles until the disk is full. Prints
    /// `filled N` (the edits that committed), `error: …`, and `kept N` once every committed edit
    /// reads back; exits 1 if one does not.
    static func fillDisk(store path: String) throws -> Int32 {
        let store = try TabKeepStore(path: path, options: .init(initialMapSize: 64 << 10))
        var committed = 0
        let text = String(repeating: "x", count: 60)
        while true {
            do {
                let profile = try ProfileID("filler-\(committed)")
                try store.edit(
                    profile, catalog: Fixture.catalog,
                    Fixture.edits(setting: committed + 1) + [.setBadgeText(try TabID("home"), text)])
                committed += 1
            } catch {
                Line.out("filled \(committed)")
                Line.out("error: \(error)")
                break
            }
        }
        for index in 0..<committed {
            guard let document = try store.document(try ProfileID("filler-\(index)")),
                Fixture.badge(of: document) == index + 1
            else {
                Line.out("lost filler-\(index)")
                return 1
            }
        }
        Line.out("kept \(committed)")
        return 0
    }
}
