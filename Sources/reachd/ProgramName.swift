/// One program on an image (issue 45): `reachctl` installed as a link to `reachd` runs reachctl.
/// Both share the Swift runtime, the engine and the D-Bus layer, so the pair is one binary's size
/// rather than two (README: installed size).
enum ProgramName {
    /// The last part of the name reachd was run by: `/usr/bin/reachctl`, `./reachctl`, `reachctl`.
    static var isReachctl: Bool {
        guard let name = CommandLine.arguments.first else { return false }
        return name.split(separator: "/").last == "reachctl"
    }
}
