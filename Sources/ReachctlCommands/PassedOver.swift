import ReachdKit
import Synchronization

/// Says, once per provider and reason, that an answer passed over a nearer provider that was
/// set up and could not answer (`ReachabilityUpdate.passedOver`): one line on standard error
/// with which, why and where its log is. The answer still follows on standard output.
enum PassedOver {
    private static let said = Mutex<Set<ReachabilityError>>([])

    static func say(_ update: ReachabilityUpdate) {
        for error in update.passedOver where said.withLock({ $0.insert(error).inserted }) {
            Output.error(sentence(error))
        }
    }

    static func sentence(_ error: ReachabilityError) -> String {
        let provider = error.provider ?? .session
        let which = provider == .system ? "reachd on the system bus" : "reachd on the session bus"
        if let setting = error.busAddressSetting {
            return "passed over \(which): \(setting) cannot be used (\(error.message)) (\(error.name))"
        }
        return "passed over \(which): it is installed but did not start (\(error.message)); its log: "
            + "\(ReachdLog.of(provider)); \(ReachdLog.checkConfig(provider)) lists any problem of its configuration (\(error.name))"
    }
}
