public import TabKeep

/// Every way a sync can fail, each with a sentence that names what is wrong.
///
/// A refused message changes nothing: decoding checks everything before a store is touched, and
/// a store applies a message in one write transaction.
public enum SyncError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The message is larger than a message may be.
    case tooLarge(size: Int, limit: Int)
    /// The bytes do not start with the sync message magic "TKSY".
    case notASyncMessage
    /// The message was written by a newer TabKeep in a format this version cannot read.
    case newerFormat(found: UInt8, supported: UInt8)
    /// The CRC-32 trailer does not match the bytes: the message was damaged or cut short.
    case checksumMismatch(stored: UInt32, computed: UInt32)
    /// The message breaks the format at byte `offset`.
    case malformed(offset: Int, reason: String)
    /// The message is of a kind this step of the protocol does not take.
    case unexpectedKind(SyncMessage.Kind, expected: String)
    /// The message came from this very replica.
    case fromThisReplica(ReplicaID)
    /// The message is a delta past a version this store has not reached, so applying it would
    /// leave a gap; the sender must send more (a new exchange does).
    case missingHistory(profile: ProfileID, replica: ReplicaID, needed: UInt64, have: UInt64)
    /// The message is of an older format (1, from the first TabKeep release), which this version no
    /// longer reads: update TabKeep on the device that wrote it.
    case olderFormat(found: UInt8, supported: UInt8)
    /// Entries are stamped further ahead of this machine's clock than allowed; nothing was
    /// applied and the local clock did not move.
    case clockDrift(aheadMilliseconds: UInt64, limitMilliseconds: UInt64)
    /// The store failed.
    case store(TabKeepError)
    /// A file or folder could not be used.
    case file(path: String, reason: String)

    /// A sentence naming what is wrong.
    public var description: String {
        switch self {
        case .tooLarge(let size, let limit):
            return "sync message refused: \(size) bytes is more than the limit of \(limit) bytes"
        case .notASyncMessage:
            return "not a sync message: it does not start with \"TKSY\""
        case .newerFormat(let found, let supported):
            return "sync message refused: format version \(found) is newer than the version \(supported) "
                + "this TabKeep reads; update TabKeep on this device"
        case .checksumMismatch(let stored, let computed):
            return "sync message refused: its CRC-32 is \(hex(stored)) but the bytes give \(hex(computed)) "
                + "(damaged or cut short)"
        case .malformed(let offset, let reason):
            return "sync message refused: \(reason) at byte \(offset)"
        case .unexpectedKind(let kind, let expected):
            return "sync message refused: a \(kind) message where \(expected) was expected"
        case .fromThisReplica(let replica):
            return "sync message refused: it comes from this replica (\(replica)) itself"
        case .missingHistory(let profile, let replica, let needed, let have):
            return "sync message refused: for profile \"\(profile)\" it is a delta past sequence \(needed) "
                + "of replica \(replica), but this store has only reached \(have); exchange again to get the whole delta"
        case .olderFormat(let found, let supported):
            return
                "sync message refused: format version \(found) (from an older TabKeep, one vector for every "
                + "profile) is no longer read; this TabKeep reads versions \(SyncMessage.oldestReadableFormatVersion) to \(supported): update TabKeep on the device that wrote it"
        case .clockDrift(let ahead, let limit):
            return "sync message refused: entries are stamped \(ahead) ms ahead of this machine's clock "
                + "(the limit is \(limit) ms); nothing was applied and the local clock did not move"
        case .store(let error):
            return error.description
        case .file(let path, let reason):
            return "\(path): \(reason)"
        }
    }

    /// Maps a store error, giving clock drift its own case.
    static func wrap(_ error: TabKeepError) -> SyncError {
        if case .clockDrift(let ahead, let limit) = error {
            return .clockDrift(aheadMilliseconds: ahead, limitMilliseconds: limit)
        }
        if case .missingHistory(let profile, let replica, let needed, let have) = error {
            return .missingHistory(profile: profile, replica: replica, needed: needed, have: have)
        }
        return .store(error)
    }
}

private func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
}
