import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Runs `URLSession` data tasks whose answers may not grow past a limit: a task is cancelled the
/// moment its body (or its announced `Content-Length`) passes the limit, so a hostile server
/// cannot make this process buffer more than the limit.
final class BoundedDownloads: NSObject, URLSessionDataDelegate, Sendable {
    /// How a bounded task ended.
    enum Outcome: Sendable {
        case finished(Data, URLResponse)
        case tooLarge
        case failed(URLError?, String)
    }

    private struct Running: Sendable {
        var limit: Int
        var data = Data()
        var response: URLResponse?
        var tooLarge = false
        var continuation: CheckedContinuation<Outcome, Never>
    }

    private let running = Mutex<[Int: Running]>([:])

    /// Runs `request` on `session` (whose delegate must be this object).
    func run(_ request: URLRequest, limit: Int, on session: URLSession) async -> Outcome {
        await withCheckedContinuation { continuation in
            let task = session.dataTask(with: request)
            running.withLock { $0[task.taskIdentifier] = Running(limit: limit, continuation: continuation) }
            task.resume()
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let allowed = running.withLock { tasks -> Bool in
            guard var entry = tasks[dataTask.taskIdentifier] else { return false }
            entry.response = response
            if response.expectedContentLength > Int64(entry.limit) { entry.tooLarge = true }
            tasks[dataTask.taskIdentifier] = entry
            return !entry.tooLarge
        }
        completionHandler(allowed ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let cancel = running.withLock { tasks -> Bool in
            guard var entry = tasks[dataTask.taskIdentifier], !entry.tooLarge else { return false }
            if entry.data.count + data.count > entry.limit {
                entry.tooLarge = true
                entry.data = Data()
            } else {
                entry.data.append(data)
            }
            tasks[dataTask.taskIdentifier] = entry
            return entry.tooLarge
        }
        if cancel { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = running.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let outcome: Outcome
        if entry.tooLarge {
            outcome = .tooLarge
        } else if let error {
            outcome = .failed(error as? URLError, (error as NSError).localizedDescription)
        } else if let response = entry.response {
            outcome = .finished(entry.data, response)
        } else {
            outcome = .failed(nil, "the connection closed without an answer")
        }
        entry.continuation.resume(returning: outcome)
    }
}
