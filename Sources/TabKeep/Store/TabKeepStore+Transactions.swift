import LMDBKit

/// The store's transactions with typed throws: LMDBKit's closures throw untyped errors, and these
/// two helpers are the one place they become a ``TabKeepError``.
extension TabKeepStore {
    /// Runs `body` in a read transaction of the store's environment; any error it throws, or LMDB
    /// throws, arrives as a ``TabKeepError`` (see `TabKeepError.wrap`).
    func read<R>(_ body: (borrowing Transaction) throws -> R) throws(TabKeepError) -> R {
        do {
            return try environment.read(body)
        } catch {
            throw TabKeepError.wrap(error)
        }
    }

    /// Runs `body` in a write transaction of the store's environment (committed when it returns,
    /// rolled back when it throws, run again after the map grew); errors arrive as a ``TabKeepError``.
    func write<R>(_ body: (borrowing Transaction) throws -> R) throws(TabKeepError) -> R {
        do {
            return try environment.write(body)
        } catch {
            throw TabKeepError.wrap(error)
        }
    }
}
