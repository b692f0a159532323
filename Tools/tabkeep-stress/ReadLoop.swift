import Foundation
import TabKeep

/// `read`: reads every document in a loop; prints `torn …` and exits 1 on the first document
/// that does not decode, breaks an invariant or shows a count and text that disagree. Prints
/// `reads N` every 20 passes.
struct ReadLoop {
    let store: String

    func run() throws -> Int32 {
        let store = try TabKeepStore(path: store)
        var passes = 0
        var documents = 0
        while true {
            var torn: String?
            try store.forEachDocument { key, result in
                documents += 1
                switch result {
                case .failure(let error):
                    torn = "torn \(key.profile): \(error)"
                case .success(let document):
                    if let problem = document.problems().first {
                        torn = "torn \(key.profile): \(problem)"
                    } else if Fixture.badge(of: document) == nil {
                        torn = "torn \(key.profile): badge count and text disagree"
                    }
                }
            }
            // The per-profile path as the app uses it: one get and a decode.
            for profile in try store.profiles() where torn == nil {
                let layout = try store.layout(profile, catalog: Fixture.catalog)
                if (layout.badges[Fixture.badgeTab] ?? 0) != Int(layout.badgeTexts[Fixture.badgeTab] ?? "0") {
                    torn = "torn \(profile): layout count and text disagree"
                }
            }
            if let torn {
                Line.out(torn)
                return 1
            }
            passes += 1
            if passes % 20 == 0 { Line.out("reads \(passes) \(documents)") }
        }
    }
}
