import Dispatch
import Foundation

/// What a corpus file's code told its app, one line each on stdout, for the corpus test to read:
///
///     update up eth7        the file's code says the network is there (and, where it says, through which interface)
///     update down           the file's code says it is gone
///     update regained       a file with no up/down of its own: its one event
///
/// A file that calls back is reported at each call (`push`); a file an app asks (`isReachable`,
/// `isOnline`) is asked every 20 ms and reported when its answer changes (`poll`), as an app's
/// timer or request path would ask it.
public final class Report: @unchecked Sendable {
    // @unchecked: `lastPolled` and `polling` are read and written only under `lock`, and each line
    // is written under it, so lines never interleave.
    private let lock = NSLock()
    private var lastPolled: String?
    private var polling: DispatchSourceTimer?

    public init() {}

    /// One line for what the file's code said.
    public func push(_ state: String) {
        lock.withLock { Report.write("update \(state)") }
    }

    /// `up` or `down`, with the interface where the file's code names one.
    public func push(reachable: Bool, interface: String? = nil) {
        push(reachable ? "up" + (interface.map { " \($0)" } ?? "") : "down")
    }

    /// Asks `read` now and then every 20 ms, on a queue of its own, and reports each change of its
    /// answer. The first answer is reported before this returns (before the driver says `started`).
    public func poll(_ read: @escaping @Sendable () -> String) {
        let first = read()
        lock.withLock { lastPolled = first }
        push(first)
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "corpus.poll"))
        timer.schedule(deadline: .now(), repeating: .milliseconds(20))
        timer.setEventHandler { [self] in
            let answer = read()
            let changed = lock.withLock { () -> Bool in
                defer { lastPolled = answer }
                return answer != lastPolled
            }
            if changed { push(answer) }
        }
        lock.withLock { polling = timer }
        timer.resume()
    }

    /// A line of the driver's own (`started`, `cancelled`).
    public func note(_ text: String) {
        lock.withLock { Report.write(text) }
    }

    static func write(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// How the driver runs one file: `start` builds what the app would hold and starts it; the closure
/// it returns is the app's way to stop (the file's own cancel or stop), nil where the file has none.
public protocol CorpusCase {
    static func start(_ report: Report) -> (() -> Void)?
}
