import ReachdCore
import Synchronization

/// One host monitor: which host, whose it is, and what it says now. The front ends give it a
/// face (reachd: the object `/io/reachd/Reachability1/Monitors/ID` and its signals; the client
/// library in-process: an update stream), through a `HostMonitorSink`.
package final class HostMonitor: Sendable {
    package let id: UInt64
    package let host: HostSpecification
    /// Who made it and may release it (a bus unique name, or the app in-process).
    package let owner: String
    /// Whose allowance it takes and whose turns its lookups wait for (reachd: the connection on the
    /// session bus, its user on the system bus).
    package let account: String
    private let report: Mutex<HostReport>

    package init(id: UInt64, host: HostSpecification, owner: String, account: String, report: HostReport) {
        self.id = id
        self.host = host
        self.owner = owner
        self.account = account
        self.report = Mutex(report)
    }

    package var current: HostReport { report.withLock { $0 } }

    /// Stores `new` and returns what it replaces. A front end calls it where it announces the
    /// change, in the order it announces changes, so the last announcement is the value held.
    package func exchange(_ new: HostReport) -> HostReport {
        report.withLock { report in
            defer { report = new }
            return report
        }
    }
}

/// Where host monitors appear and their new reports go: the front end's side of the registry.
package protocol HostMonitorSink: Sendable {
    /// Makes `monitor` visible to its owner (reachd exports its object); throwing refuses it.
    func attach(_ monitor: HostMonitor, registry: HostMonitorRegistry) async throws
    /// Takes monitors away (released, or their owner left).
    func detach(_ monitors: [HostMonitor]) async
    /// Each monitor's new report, in one turn: the sink stores it (`exchange`) and announces a change.
    func publish(_ updates: [(HostMonitor, HostReport)]) async
    /// The number of monitors changed.
    func countChanged() async
    /// The number of monitors just changed: said at once, under the registry's lock, where
    /// `countChanged()` follows in its own time. For what must never lag the count (reachd's
    /// replies cached with it); quick, and never calling back into the registry.
    func countChangedAtOnce()
}

extension HostMonitorSink {
    package func countChangedAtOnce() {}
}
