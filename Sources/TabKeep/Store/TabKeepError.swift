public import LMDBKit

/// Every way a ``TabKeepStore`` call can fail, each with a sentence that names what is wrong.
public enum TabKeepError: Error, Hashable, Sendable, CustomStringConvertible {
    /// LMDB failed (a full disk, a full map, a read-only directory…).
    case storage(LMDBError)
    /// The store was written by a newer TabKeep; it is left untouched.
    case newerSchema(found: Int, supported: Int)
    /// The `meta` database holds something this version cannot read.
    case corruptMeta(String)
    /// One document's value does not decode; the rest of the store is unaffected.
    case corruptDocument(DocumentKey, DocumentDecodingError)
    /// A registered catalog's value does not decode.
    case corruptCatalog(BarID, DocumentDecodingError)
    /// No catalog was given and none is registered for the bar.
    case noCatalog(BarID)
    /// An identifier broke its rules.
    case invalidIdentifier(IdentifierError)
    /// An edit was refused; nothing of the call was applied.
    case invalidEdit(EditError)
    /// Incoming entries are stamped further ahead of this machine's clock than allowed.
    case clockDrift(aheadMilliseconds: UInt64, limitMilliseconds: UInt64)
    /// A store directory that cannot be used.
    case invalidDirectory(path: String, reason: String)
    /// Something the caller supplied failed (an import's feed, say); nothing was written.
    case failed(String)
    /// The store's clock has reached the highest stamp it can hold (the year 10889, or a clock
    /// dragged there): no edit can be ordered after the ones it has.
    case clockExhausted
    /// The store lacks one of its named databases (damaged, or not a TabKeep store).
    case missingDatabase(String)
    /// A dump, import or sync would raise a profile's version vector past what its entries prove,
    /// or names a base this store has not reached; nothing was written.
    case missingHistory(ProfileID, replica: ReplicaID, needed: UInt64, have: UInt64)

    /// A sentence naming what is wrong.
    public var description: String {
        switch self {
        case .storage(let error):
            return "storage error: \(error)"
        case .newerSchema(let found, let supported):
            return
                "the store has schema \(found), newer than the \(supported) this version supports; it was not changed"
        case .corruptMeta(let what):
            return "corrupt meta record: \(what)"
        case .corruptDocument(let key, let error):
            return "corrupt document for profile \"\(key.profile)\" bar \"\(key.bar)\": \(error)"
        case .corruptCatalog(let bar, let error):
            return "corrupt catalog for bar \"\(bar)\": \(error)"
        case .noCatalog(let bar):
            return "no catalog is registered for bar \"\(bar)\"; register one or pass it"
        case .invalidIdentifier(let error):
            return error.description
        case .invalidEdit(let error):
            return "edit refused: \(error)"
        case .clockDrift(let ahead, let limit):
            return
                "entries are stamped \(ahead) ms ahead of this machine's clock (the limit is \(limit) ms); nothing was applied"
        case .invalidDirectory(let path, let reason):
            return "cannot use \(path) as a store: \(reason)"
        case .failed(let reason):
            return reason
        case .missingDatabase(let name):
            return "the store has no \"\(name)\" database (damaged, or not a TabKeep store)"
        case .clockExhausted:
            return
                "the store's clock has reached its highest stamp; no further edit can be ordered, nothing was written"
        case .missingHistory(let profile, let replica, let needed, let have):
            return
                "profile \"\(profile)\": the entries are a delta past sequence \(needed) of replica \(replica), but this store has only \(have); nothing was applied (ask again)"
        }
    }
}

extension TabKeepError {
    /// Wraps any error thrown inside a transaction as a `TabKeepError`.
    static func wrap(_ error: any Error) -> TabKeepError {
        switch error {
        case let error as TabKeepError: error
        case let error as LMDBError: .storage(error)
        case let error as EditError: .invalidEdit(error)
        case let error as IdentifierError: .invalidIdentifier(error)
        default: .failed(String(describing: error))
        }
    }
}
