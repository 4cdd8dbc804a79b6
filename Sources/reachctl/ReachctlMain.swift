import ReachctlCommands

/// `reachctl` on its own, as `swift build` and the tests run it. An installed reachctl is
/// `reachd` by another name (Scripts/install), which runs the same `ReachctlProgram`.
@main
enum ReachctlMain {
    static func main() {
        ReachctlProgram.main()
    }
}
