import Foundation
import LMDBKit

/// The data-protection class of a store's files on iOS, tvOS, visionOS and watchOS: when the
/// system lets processes read them while the device is locked. Elsewhere it is recorded and has
/// no effect (macOS and Linux have no per-file data protection).
///
/// The default, ``completeUntilFirstUserAuthentication``, lets a notification extension bump a
/// badge while the device is locked once it has been unlocked since boot. ``complete`` breaks
/// that: the files cannot be opened while locked, so such an extension (and a background sync)
/// fails to open the store, and an app that had it open loses access when the device locks.
public enum FileProtection: String, Hashable, Sendable, CaseIterable {
    /// Readable only while the device is unlocked (`FileProtectionType.complete`).
    case complete
    /// Files open when the device locks stay usable; new ones cannot be opened while locked
    /// (`FileProtectionType.completeUnlessOpen`).
    case completeUnlessOpen
    /// Readable from the first unlock after boot on, locked or not
    /// (`FileProtectionType.completeUntilFirstUserAuthentication`): the default.
    case completeUntilFirstUserAuthentication
    /// No data protection (`FileProtectionType.none`).
    case none
}

#if canImport(Darwin) && !os(macOS)
    extension FileProtection {
        /// The Foundation value this class names.
        var foundationType: FileProtectionType {
            switch self {
            case .complete: .complete
            case .completeUnlessOpen: .completeUnlessOpen
            case .completeUntilFirstUserAuthentication: .completeUntilFirstUserAuthentication
            case .none: .none
            }
        }
    }
#endif

extension TabKeepStore {
    /// Gives the store's directory and files the protection class the options ask for (Apple's
    /// mobile platforms only); files made later in the directory inherit it from the directory.
    func applyFileProtection(_ protection: FileProtection, path: String) throws(TabKeepError) {
        #if canImport(Darwin) && !os(macOS)
            let names = ["", "/data.mdb", "/lock.mdb", "/" + Environment.transactionLockFileName]
            for name in names where FileManager.default.fileExists(atPath: path + name) {
                do {
                    try FileManager.default.setAttributes(
                        [.protectionKey: protection.foundationType], ofItemAtPath: path + name)
                } catch {
                    throw .invalidDirectory(
                        path: path,
                        reason: "cannot set its data protection to \(protection.rawValue): \(error)")
                }
            }
        #endif
    }
}
