/// What reachd needs from a Flatpak app's `/.flatpak-info`: the app's ID and what it shares
/// with the host. Flatpak writes this key file into every sandbox it starts; the app cannot
/// change it. xdg-desktop-portal decides "may this app see the network" from the same file
/// (contract §6.1), and reachd follows that rule.
///
/// The format is GLib's key file: `[Group]` headers, `key=value` lines, `#` comments, list
/// values separated by `;` (with `\;` for a literal one). Anything unreadable counts as absent,
/// and an absent `shared` means nothing is shared: no network.
///
/// ```swift
/// let info = FlatpakInfo(parsing: "[Application]\nname=org.example.App\n[Context]\nshared=network;ipc;\n")
/// info.applicationName   // "org.example.App"
/// info.hasNetwork        // true
/// ```
public struct FlatpakInfo: Sendable, Hashable {
    /// `[Application] name`: the app ID.
    public var applicationName: String?
    /// `[Context] shared`: `network`, `ipc`, …
    public var shared: [String]

    /// The app was started with `--share=network`: it sees the host's network.
    public var hasNetwork: Bool { shared.contains("network") }

    public init(applicationName: String? = nil, shared: [String] = []) {
        self.applicationName = applicationName
        self.shared = shared
    }

    public init(parsing text: String) {
        var group = ""
        var name: String?
        var shared: [String]?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.drop { $0 == " " || $0 == "\t" }
            if line.isEmpty || line.first == "#" { continue }
            if line.first == "[" {
                group = line.last == "]" ? String(line.dropFirst().dropLast()) : ""
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingSpaces
            let value = line[line.index(after: equals)...].trimmingSpaces
            // A later duplicate wins, as in GLib.
            switch (group, key) {
            case ("Application", "name"): name = String(value)
            case ("Context", "shared"): shared = Self.list(value)
            default: break
            }
        }
        self.init(applicationName: name, shared: shared ?? [])
    }

    /// A key-file list: `a;b;` or `a;b`, `\;` inside an item, `\\` for a backslash.
    private static func list(_ value: Substring) -> [String] {
        var items: [String] = []
        var item = ""
        var escaped = false
        for character in value {
            if escaped {
                item.append(character == ";" || character == "\\" ? character : "\\")
                if character != ";" && character != "\\" { item.append(character) }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ";" {
                items.append(item)
                item = ""
            } else {
                item.append(character)
            }
        }
        if !item.isEmpty { items.append(item) }
        return items.map { String(Substring($0).trimmingSpaces) }.filter { !$0.isEmpty }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        let start = firstIndex { !isSpace($0) } ?? endIndex
        let end = lastIndex { !isSpace($0) }.map { index(after: $0) } ?? start
        return self[start..<Swift.max(start, end)]
    }
}
