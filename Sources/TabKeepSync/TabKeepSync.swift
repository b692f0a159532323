// TabKeepSync: exchanges document deltas between stores (messages, sessions, folder transport).
//
// `TabKeep` records; this module only moves what the store's `delta(after:)` extracts and hands
// it to the store's `apply(_:vector:maxDrift:)`, which merges in one write transaction.
