import CorpusSupport
import ReactiveSwift

// Reactor (MailOnline) asks `isConnected()` before each request and takes the producer's one value.
public enum Case: CorpusCase {
    public static func start(_ report: Report) -> (() -> Void)? {
        let reachability = Reachability()
        report.poll {
            var connected = false
            reachability.isConnected().startWithValues { connected = $0 }
            return connected ? "up" : "down"
        }
        return nil
    }
}
