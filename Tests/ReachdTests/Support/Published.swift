import Foundation
import ReachdTestSupport

/// The reachability properties of `io.reachd.Reachability1` as a client reads them.
/// Tests write these by hand from docs/mapping.md's tables.
struct Published: Equatable, Sendable, CustomStringConvertible {
    var status: Int32
    var flags: UInt32
    var reachable: Bool
    var reachableViaWWAN: Bool
    var reachableViaWiFi: Bool
    var statusString: String
    var interfaceType: String
    var interface: String
    var metered: Bool
    var connectivity: String
    var backend: String
    var source: String
    var unsatisfiedReason: String
    var level: String
    var linkQuality: String

    static let names = [
        "Status", "Flags", "Reachable", "ReachableViaWWAN", "ReachableViaWiFi", "StatusString",
        "InterfaceType", "Interface", "Metered", "Connectivity", "Backend", "Source", "UnsatisfiedReason", "Level",
        "LinkQuality",
    ]

    /// `source` defaults to what `backend` implies without overrides; `unsatisfiedReason` to ""
    /// when reachable, "unknown" without a source, else "no-route"; `level` to "dns" when
    /// reachable (the machine's DNS server has a path; NetworkManager's check never runs in
    /// these tests, so never "online"), "unknown" without a source, else "link" (reachd's
    /// namespace keeps its uplink's carrier); `linkQuality` to what the tests' links measure
    /// (`expectedLinkQuality`).
    init(status: Int32, flags: UInt32, reachable: Bool, reachableViaWWAN: Bool, reachableViaWiFi: Bool,
         statusString: String, interfaceType: String, interface: String, metered: Bool, connectivity: String,
         backend: String, source: String? = nil, unsatisfiedReason: String? = nil, level: String? = nil,
         linkQuality: String? = nil) {
        self.status = status
        self.flags = flags
        self.reachable = reachable
        self.reachableViaWWAN = reachableViaWWAN
        self.reachableViaWiFi = reachableViaWiFi
        self.statusString = statusString
        self.interfaceType = interfaceType
        self.interface = interface
        self.metered = metered
        self.connectivity = connectivity
        self.backend = backend
        self.source = source ?? backend
        self.unsatisfiedReason = unsatisfiedReason ?? (status > 0 ? "" : backend.isEmpty ? "unknown" : "no-route")
        self.level = level ?? (status > 0 ? "dns" : backend.isEmpty ? "unknown" : "link")
        self.linkQuality = linkQuality ?? Self.expectedLinkQuality(reachable: status > 0, interfaceType: interfaceType,
                                                                   interface: interface, backend: backend)
    }

    /// What the tests' links measure (docs/mapping.md, "Link quality"): the NetworkManager
    /// template's access point has `Strength` 80 (good); an Ethernet link of this namespace, a
    /// veth, says 10000 Mb/s in sysfs (good); a device that is not in this namespace (the
    /// template's `eth0`) and every other medium measure nothing (unknown).
    static func expectedLinkQuality(reachable: Bool, interfaceType: String, interface: String, backend: String) -> String {
        guard reachable else { return "unknown" }
        switch interfaceType {
        case "wifi" where backend == "networkmanager" && interface == "wlan0":
            return "good"
        case "ethernet":
            guard let text = try? String(contentsOfFile: "/sys/class/net/\(interface)/speed", encoding: .utf8),
                  let speed = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), speed > 0 else { return "unknown" }
            return speed >= 100 ? "good" : speed >= 10 ? "moderate" : "minimal"
        default:
            return "unknown"
        }
    }

    /// The same values with another `LinkQuality`.
    func withLinkQuality(_ quality: String) -> Published {
        var copy = self
        copy.linkQuality = quality
        return copy
    }

    /// The same values at another `Level`.
    func atLevel(_ level: String) -> Published {
        var copy = self
        copy.level = level
        return copy
    }

    /// The same values with another `UnsatisfiedReason`.
    func because(_ reason: String) -> Published {
        var copy = self
        copy.unsatisfiedReason = reason
        return copy
    }

    /// What reachd publishes while it has no source at all.
    static let unknown = Published(
        status: -1, flags: 0, reachable: false, reachableViaWWAN: false, reachableViaWiFi: false,
        statusString: "Unknown", interfaceType: "none", interface: "", metered: false,
        connectivity: "unknown", backend: "")

    /// Each property as `gdbus` prints it inside a variant: `<2>`, `<uint32 2>`, `<true>`, `<'wifi'>`.
    var variantTexts: [String: String] {
        func text(_ value: Bool) -> String { value ? "<true>" : "<false>" }
        func text(_ value: String) -> String { "<'\(value)'>" }
        return [
            "Status": "<\(status)>", "Flags": "<uint32 \(flags)>", "Reachable": text(reachable),
            "ReachableViaWWAN": text(reachableViaWWAN), "ReachableViaWiFi": text(reachableViaWiFi),
            "StatusString": text(statusString), "InterfaceType": text(interfaceType), "Interface": text(interface),
            "Metered": text(metered), "Connectivity": text(connectivity), "Backend": text(backend),
            "Source": text(source), "UnsatisfiedReason": text(unsatisfiedReason), "Level": text(level),
            "LinkQuality": text(linkQuality),
        ]
    }

    /// `busctl get-property` of them all, one `TYPE VALUE` line each, in `names` order.
    var busctlLines: String {
        func text(_ value: Bool) -> String { "b \(value)" }
        func text(_ value: String) -> String { "s \"\(value)\"" }
        return [
            "i \(status)", "u \(flags)", text(reachable), text(reachableViaWWAN), text(reachableViaWiFi),
            text(statusString), text(interfaceType), text(interface), text(metered), text(connectivity), text(backend),
            text(source), text(unsatisfiedReason), text(level), text(linkQuality),
        ].joined(separator: "\n") + "\n"
    }

    /// The signals a client must see when the published values go from `old` to
    /// `self`: one PropertiesChanged naming exactly the properties that differ
    /// (none if nothing does), then ReachabilityChanged if (Status, Flags) differs.
    func signals(after old: Published) -> [ReachdSignal] {
        let new = variantTexts, previous = old.variantTexts
        let changed = new.filter { previous[$0.key] != $0.value }
        var result: [ReachdSignal] = []
        if !changed.isEmpty { result.append(.propertiesChanged(changed)) }
        if status != old.status || flags != old.flags {
            result.append(.reachabilityChanged("(\(status), uint32 \(flags))"))
        }
        return result
    }

    var description: String {
        "Status \(status), Flags 0x\(String(flags, radix: 16)), Reachable \(reachable), WWAN \(reachableViaWWAN), "
            + "WiFi \(reachableViaWiFi), \"\(statusString)\", \(interfaceType) \"\(interface)\", Metered \(metered), "
            + "Connectivity \(connectivity), Backend \"\(backend)\", Source \"\(source)\", UnsatisfiedReason \"\(unsatisfiedReason)\", "
            + "LinkQuality \(linkQuality)"
    }
}

extension PrivateBus {
    /// Reads them all with one `busctl get-property`, as a user would.
    func publishedProperties() async throws -> ToolResult {
        try await runTool("busctl", ["--address=\(address)", "get-property", ReachdProcess.busName, ReachdProcess.path,
                                     ReachdProcess.interface] + Published.names)
    }

    /// `gdbus call … GetStatus`: `(STATUS, uint32 FLAGS)`.
    func getStatus() async throws -> ToolResult {
        try await gdbus("call", "--dest", ReachdProcess.busName, "--object-path", ReachdProcess.path,
                        "--method", ReachdProcess.interface + ".GetStatus")
    }
}
