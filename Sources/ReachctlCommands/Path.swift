import CommandGrammar
import ReachdKit

extension Reachctl {
    struct Path {
        static let command = Command(
            name: "path",
            abstract: "Print the network path as NWPathMonitor would describe it.",
            discussion: """
                Status (satisfied, unsatisfied), the reason, the level, IPv4/IPv6/DNS support, \
                whether the path is expensive or validated, the link's quality, the interfaces that \
                could carry a path and the gateways, read in one call.

                \(ExitStatus.readHelp)
                """,
            options: [.flag("json", help: "Print one JSON object instead of text."), ServiceOption.option])

        let json: Bool
        let provider: ServiceOption

        init(_ invocation: Invocation) {
            json = invocation.flag("json")
            provider = ServiceOption(invocation)
        }

        func run() async throws {
            try provider.apply()
            let update = try await Status.fetchDefaultRoute()
            PassedOver.say(update)
            let report = PathReport(update)
            Output.line(json ? Output.json(report) : report.text)
        }
    }
}

/// `reachctl path`: NetworkPath's fields, keys in lower camel case.
struct PathReport: JSONRepresentable {
    struct Interface {
        var name: String
        var type: String
        var hasInternetPath: Bool
    }

    var status: String
    var unsatisfiedReason: String
    var level: String
    var isExpensive: Bool
    var isConstrained: Bool
    var isValidated: Bool
    var isBehindCaptivePortal: Bool
    var supportsIPv4: Bool
    var supportsIPv6: Bool
    var supportsDNS: Bool
    var interfaceType: String
    var underlyingInterfaceType: String
    var availableInterfaces: [Interface]
    var gateways: [String]
    var source: String
    /// `LinkQuality`: `unknown`, `minimal`, `moderate` or `good`.
    var linkQuality = "unknown"
    /// Who answered: `session`, `system` or `in-process`, and in words.
    var service: String?
    var answeredBy: String?

    init(_ update: ReachabilityUpdate) {
        self.init(NetworkPath(update))
        linkQuality = update.linkQuality.rawValue
        service = update.service?.rawValue
        answeredBy = update.answeredBy
    }

    init(_ path: NetworkPath) {
        status = switch path.status {
        case .satisfied: "satisfied"
        case .unsatisfied: "unsatisfied"
        case .requiresConnection: "requiresConnection"
        }
        unsatisfiedReason = path.unsatisfiedReason.rawValue
        level = path.level.rawValue
        isExpensive = path.isExpensive
        isConstrained = path.isConstrained
        isValidated = path.isValidated
        isBehindCaptivePortal = path.isBehindCaptivePortal
        supportsIPv4 = path.supportsIPv4
        supportsIPv6 = path.supportsIPv6
        supportsDNS = path.supportsDNS
        interfaceType = path.interfaceType.rawValue
        underlyingInterfaceType = path.underlyingInterfaceType?.rawValue ?? ""
        availableInterfaces = path.availableInterfaces.map {
            Interface(name: $0.name, type: $0.type.rawValue, hasInternetPath: $0.hasInternetPath)
        }
        gateways = path.gateways
        source = path.source?.rawValue ?? ""
    }

    var jsonValue: JSONValue {
        var fields: [String: JSONValue] = [
            "status": .string(status), "unsatisfiedReason": .string(unsatisfiedReason), "level": .string(level),
            "isExpensive": .bool(isExpensive), "isConstrained": .bool(isConstrained), "isValidated": .bool(isValidated),
            "isBehindCaptivePortal": .bool(isBehindCaptivePortal), "supportsIPv4": .bool(supportsIPv4),
            "supportsIPv6": .bool(supportsIPv6), "supportsDNS": .bool(supportsDNS), "interfaceType": .string(interfaceType),
            "underlyingInterfaceType": .string(underlyingInterfaceType),
            "availableInterfaces": .array(availableInterfaces.map {
                .object(["name": .string($0.name), "type": .string($0.type), "hasInternetPath": .bool($0.hasInternetPath)])
            }),
            "gateways": .array(gateways.map(JSONValue.string)), "source": .string(source),
            "linkQuality": .string(linkQuality),
        ]
        if let service { fields["service"] = .string(service) }
        return .object(fields)
    }

    var text: String {
        var lines = ["\(status)\(unsatisfiedReason.isEmpty ? "" : " (\(unsatisfiedReason))"), level \(level)"]
        lines.append("  families:     \([supportsIPv4 ? "IPv4" : nil, supportsIPv6 ? "IPv6" : nil].compactMap { $0 }.joined(separator: ", "))")
        lines.append("  dns:          \(supportsDNS ? "yes" : "no")")
        lines.append("  expensive:    \(isExpensive ? "yes" : "no"), validated: \(isValidated ? "yes" : "no")")
        lines.append("  link quality: \(linkQuality)")
        lines.append("  interfaces:   \(availableInterfaces.map { "\($0.name) (\($0.type)\($0.hasInternetPath ? ", internet" : ""))" }.joined(separator: ", "))")
        lines.append("  gateways:     \(gateways.joined(separator: ", "))")
        if let answeredBy { lines.append("  answered by:  \(answeredBy)") }
        return lines.joined(separator: "\n")
    }
}
