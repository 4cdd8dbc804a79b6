import ReachdKit

/// `watch` and `host --watch`: prints each update until interrupted. While reachd cannot be
/// reached, standard output shows Unknown and standard error says why and what would fix it —
/// once per reason, however often the library retries — and, once reachd answers, that it does.
/// A refusal does not go away by waiting: it ends the command (exit 4).
enum Follower {
    private enum Event: Sendable {
        case update(ReachabilityUpdate)
        case error(ReachabilityError?)
    }

    static func follow(_ manager: NetworkReachabilityManager, printing line: (ReachabilityUpdate) -> String) async throws {
        let (events, sink) = AsyncStream.makeStream(of: Event.self)
        // Errors first: the stream starts with the current value, before any update is asked for.
        let errors = manager.lastErrorUpdates
        let updates = manager.updates
        let tasks = [
            Task { for await error in errors { sink.yield(.error(error)) } },
            Task {
                for await update in updates { sink.yield(.update(update)) }
                sink.finish()
            },
        ]
        defer { tasks.forEach { $0.cancel() } }

        var said: String?
        var printed: String?
        for await event in events {
            switch event {
            case .update(let update):
                if update.status == .unknown, let error = manager.lastError, !error.isServiceUnavailable {
                    throw ExitStatus.failure(error)
                }
                // A change of only what the line does not show (the JSON line shows everything)
                // would print the line before again: it is left out.
                PassedOver.say(update)
                let text = line(update)
                guard text != printed else { continue }
                printed = text
                Output.line(text)
            case .error(let error?):
                guard error.isServiceUnavailable else { throw ExitStatus.failure(error) }
                let sentence = Explanation(error).waitingSentence
                if sentence != said {
                    Output.error(sentence)
                    said = sentence
                }
            case .error(nil):
                if said != nil { Output.error("connected to reachd") }
                said = nil
            }
        }
    }
}
