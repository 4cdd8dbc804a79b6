import Foundation
import ReachdTestSupport

/// A signal from reachd's object as `gdbus monitor` prints it.
enum ReachdSignal: Equatable, Sendable, CustomStringConvertible {
    /// `PropertiesChanged` on `io.reachd.Reachability1` with no invalidated
    /// names: property name → value as gdbus prints it (`<2>`, `<'wifi'>`).
    case propertiesChanged([String: String])
    /// `ReachabilityChanged` with its arguments as printed: `(2, uint32 2)`.
    case reachabilityChanged(String)
    /// Anything else, verbatim.
    case other(String)

    var description: String {
        switch self {
        case .propertiesChanged(let changed):
            "PropertiesChanged{" + changed.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .reachabilityChanged(let arguments): "ReachabilityChanged\(arguments)"
        case .other(let line): line
        }
    }

    /// Parses one line of `gdbus monitor` output; nil for lines that are not signals, and for a
    /// PropertiesChanged that names only `Details` (diagnostics, which `Published` leaves out;
    /// tests of `Details` read it themselves).
    init?(gdbusLine line: String) {
        let prefix = ReachdProcess.path + ": "
        guard line.hasPrefix(prefix) else { return nil }
        let text = String(line.dropFirst(prefix.count))
        let propertiesChanged = "org.freedesktop.DBus.Properties.PropertiesChanged ('\(ReachdProcess.interface)', "
        let reachabilityChanged = ReachdProcess.interface + ".ReachabilityChanged "
        if text.hasPrefix(propertiesChanged), text.hasSuffix(", @as [])") {
            let dictionary = text.dropFirst(propertiesChanged.count).dropLast(", @as [])".count)
            var changed: [String: String] = [:]
            // {'Status': <2>, 'StatusString': <'Reachable via WiFi'>}: no value here contains '>',
            // except Details' nested dictionary, which is left out. Its keys are lower case with
            // hyphens (`nm-state`, a link's name), so only the properties' own names match.
            for match in dictionary.matches(of: /'([A-Z]\w*)': (<[^>]*>)/) where match.output.1 != "Details" {
                changed[String(match.output.1)] = String(match.output.2)
            }
            guard !changed.isEmpty || !dictionary.contains("'Details'") else { return nil }
            self = .propertiesChanged(changed)
        } else if text.hasPrefix(reachabilityChanged) {
            self = .reachabilityChanged(String(text.dropFirst(reachabilityChanged.count)))
        } else {
            self = .other(text)
        }
    }
}

/// `gdbus monitor --address SESSION --dest io.reachd.Reachability1`, a client
/// subscribed to everything reachd emits, its output read back as signals.
final class ReachdSignalMonitor: Sendable {
    private let tool: BackgroundTool

    /// Starts the monitor once reachd owns its name, and returns when the
    /// monitor's subscription is on the bus (so no later signal is missed).
    init(session: PrivateBus) async throws {
        tool = try BackgroundTool("gdbus", ["monitor", "--address", session.address, "--dest", ReachdProcess.busName])
        do {
            try await tool.waitForOutput(containing: "The name \(ReachdProcess.busName) is owned by ")
            let line = tool.output.split(separator: "\n").first { $0.contains(" is owned by ") } ?? ""
            let owner = String(line.split(separator: " ").last ?? "")
            try await session.waitForMatchRule(sender: owner)
        } catch {
            tool.stop()
            throw error
        }
    }

    /// Every signal seen so far, in order.
    var signals: [ReachdSignal] {
        tool.standardOutput.split(separator: "\n").compactMap { ReachdSignal(gdbusLine: String($0)) }
    }

    /// Waits until at least `count` signals have been seen.
    func waitForSignals(count: Int, timeout: Duration = .seconds(10)) async throws {
        try await eventually(timeout: timeout, "gdbus monitor has seen \(count) signals; it has:\n\(tool.output)") {
            signals.count >= count
        }
    }

    var output: String { tool.output }

    func stop() { tool.stop() }

    deinit { tool.stop() }
}
