/// Which profiles an exchange, a delta or a vector read covers.
public enum ProfileScope: Hashable, Sendable {
    /// Every profile either side holds.
    case all
    /// Only these profiles: nothing of any other is read, sent, written or revealed.
    case only(Set<ProfileID>)

    /// Whether `profile` is in the scope.
    public func contains(_ profile: ProfileID) -> Bool {
        switch self {
        case .all: true
        case .only(let profiles): profiles.contains(profile)
        }
    }
}
