import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// Real files from public apps and SDKs (Tests/Fixtures/Corpus, byte-identical, pinned in
/// MANIFEST.tsv), each compiled unchanged against the SystemConfiguration or Network product with
/// only stubs for what it takes from its own SDK, and run where an app runs: a namespace with no bus,
/// so the product answers in-process. Every file hears the network come up, go, come back, move to
/// another interface, and its own cancel, as its code is written to hear them on Apple's systems.
// The limit leaves room for the release driver's build to wait its turn behind the install tests
// (Scripts/harness/corpus-release): 3.5 minutes in a whole run, with nothing to build.
@Suite("Real apps' and SDKs' reachability code, compiled unchanged (the corpus)", .timeLimit(.minutes(10)))
struct CorpusTests {
    /// How a file's code tells its app, as written (the same on Apple's systems).
    enum Telling: Sendable, Equatable {
        /// An NWPathMonitor handler for each path: `up eth7`, `down`, `up eth8` (`up` where the file
        /// passes on no interface name).
        case everyPath(namesInterface: Bool)
        /// A handler for each path that passes on nothing of it (`changed`).
        case somethingChanged
        /// An SCNetworkReachability callback for each change configd reports, flags or interface:
        /// `up`, `down`, and `up` again when the path moves to another interface.
        case everyCallback
        /// Only when its answer changes (its own comparison, or an app asking it): `up`, `down`, nothing on a move.
        case changes
        /// Only the network coming back (`regained`), for a retry.
        case regained
        /// Once, the first time the network is there (`regained`): a promise.
        case firstReachable
        /// Only Wi-Fi and cellular connections: on the namespace's wired links, `unavailable` throughout.
        case wirelessOnly
    }

    struct File: Sendable, CustomStringConvertible {
        let name: String
        let telling: Telling
        /// The file has a stop or cancel of its own.
        let cancels: Bool
        var description: String { name }
    }

    /// Every case of Tests/Fixtures/Corpus/Cases, by what its file does.
    static let files: [File] = [
        File(name: "Alamofire", telling: .changes, cancels: true),
        File(name: "AmplifyReachability", telling: .changes, cancels: true),
        File(name: "Ashleymills", telling: .changes, cancels: true),
        File(name: "Embrace", telling: .regained, cancels: false),
        File(name: "LaunchDarkly", telling: .changes, cancels: false),
        File(name: "NetNewsWireReachability", telling: .changes, cancels: true),
        File(name: "PocketCasts", telling: .changes, cancels: false),
        File(name: "PostHog", telling: .changes, cancels: true),
        File(name: "RxSwiftExample", telling: .changes, cancels: true),
        File(name: "Split", telling: .changes, cancels: true),
        File(name: "Stats", telling: .everyCallback, cancels: true),
        File(name: "Optimizely", telling: .changes, cancels: true),
        File(name: "Iterable", telling: .somethingChanged, cancels: true),
        File(name: "Ruuvi", telling: .changes, cancels: false),
        File(name: "Automerge", telling: .everyPath(namesInterface: true), cancels: true),
        File(name: "AmplifyPinpoint", telling: .changes, cancels: true),
        File(name: "AmplifyLogging", telling: .changes, cancels: true),
        File(name: "VsanthanamMonitor", telling: .everyPath(namesInterface: true), cancels: true),
        File(name: "VsanthanamAsync", telling: .everyPath(namesInterface: true), cancels: true),
        File(name: "SundialKit", telling: .everyPath(namesInterface: true), cancels: true),
        File(name: "DataDog", telling: .everyPath(namesInterface: false), cancels: true),
        File(name: "DataDogReachability", telling: .changes, cancels: false),
        File(name: "PromiseKit", telling: .firstReachable, cancels: false),
        File(name: "Reactor", telling: .changes, cancels: false),
        File(name: "OpenTelemetry", telling: .wirelessOnly, cancels: false),
    ]

    enum Build: String, Sendable, CaseIterable { case debug, release }

    static func driver(_ build: Build) async throws -> String {
        switch build {
        case .debug: return AppleFixture.directory.appendingPathComponent("reachd-corpus").path
        case .release: return try await InstalledBuild.corpusDriver
        }
    }

    @Test("every file hears bring-up, loss, the move to another interface and its own cancel, as on Apple's systems",
          arguments: Build.allCases)
    func everyFileHearsWhatItsCodeListensFor(_ build: Build) async throws {
        let driver = try await Self.driver(build)
        let listed = try await runToolChecked(driver, ["--list"]).standardOutput.split(separator: "\n").map(String.init)
        #expect(listed.sorted() == Self.files.map(\.name).sorted(), "every case the driver runs has its expectation here")

        try await withTwoUplinks { namespace in
            let apps = try Self.files.map { file in (file, try namespace.process(driver, [file.name])) }
            defer { for (_, app) in apps { app.stop(SIGKILL); app.removeOutput() } }
            for (file, app) in apps {
                try await eventually(timeout: .seconds(30), "\(file) started:\n\(app.standardOutput)\(app.standardError)") {
                    app.standardOutput.contains("started\n")
                }
            }

            // Offline at first: a file that says anything says down (Optimizely's says up until its
            // monitor's first path: "initially true for safety in production").
            for (file, app) in apps {
                try await eventually(timeout: .seconds(10), "\(file) \(build) is offline before the bring-up:\n\(app.standardOutput)") {
                    Self.updates(app).last.map { !$0.hasPrefix("up") && $0 != "regained" } ?? true
                }
            }

            // Bring-up: link, address and default route together.
            try await Self.phase(apps, build, "bring-up", up: true, interface: "eth7") { try await namespace.bringUp() }
            // Loss: the default route goes.
            try await Self.phase(apps, build, "loss", up: false) { try await namespace.deleteDefaultRoute() }
            // It comes back.
            try await Self.phase(apps, build, "return", up: true, interface: "eth7") { try await namespace.restoreDefaultRoute() }
            // The move: the default route to the second uplink, nothing lost on the way.
            let beforeMove = apps.map { Self.updates($0.1).count }
            try await Self.phase(apps, build, "move", up: true, interface: "eth8") { try await namespace.moveDefaultRoute() }
            try await Task.sleep(for: .seconds(1))
            for ((file, app), before) in zip(apps, beforeMove) {
                let moved = Array(Self.updates(app).dropFirst(before))
                if Self.hears(file, "move") {
                    #expect(moved.allSatisfy { $0.hasPrefix("up") || $0 == "changed" }, "\(file) \(build): never down on the move: \(moved)")
                } else {
                    #expect(moved.isEmpty, "\(file) \(build): told nothing of a move that changed no answer: \(moved)")
                }
            }

            // Cancel: the file's own stop, then a loss that reaches nobody.
            for (file, app) in apps {
                kill(app.pid, SIGUSR1)
                let word = file.cancels ? "cancelled" : "no-cancel"
                try await eventually(timeout: .seconds(10), "\(file) \(build) ran its stop:\n\(app.standardOutput)") {
                    app.standardOutput.contains(word + "\n")
                }
            }
            try await namespace.deleteDefaultRoute()
            try await Task.sleep(for: .seconds(1.5))
            for (file, app) in apps where file.cancels {
                let afterCancel = app.standardOutput.components(separatedBy: "cancelled\n").last ?? ""
                #expect(!afterCancel.contains("update "), "\(file) \(build): nothing after its cancel: \(afterCancel)")
                #expect(app.poll() == nil, "\(file) \(build) exited after its cancel:\n\(app.standardError)")
            }
            for (file, app) in apps where file.telling == .wirelessOnly {
                #expect(Self.updates(app).allSatisfy { $0 == "unavailable" }, "\(file) \(build) names no wired link: \(Self.updates(app))")
            }
            // A file with nothing to stop goes on hearing.
            for (file, app) in apps where !file.cancels && Self.hears(file, "loss") {
                try await Self.waitForLast(file, app, up: false, "\(build) after the loss that follows its (absent) cancel",
                                      after: Self.updates(app.standardOutput.components(separatedBy: "no-cancel\n")[0]).count)
            }
        }
    }

    /// Tests/Fixtures/Corpus (this file is Tests/ReachdAppleNetworkTests/CorpusTests.swift).
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Corpus")

    @Test("every vendored file is byte-identical to its project's, as MANIFEST.tsv pins it, with the project's licence beside it")
    func theFilesAreTheProjectsOwn() async throws {
        let rows = try String(contentsOf: Self.corpus.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
            .split(separator: "\n").dropFirst().map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let vendored = rows.filter { $0.count == 13 && $0[12] == "yes" }
        #expect(vendored.count >= 25 && rows.count == vendored.count + rows.filter { $0.count == 13 && $0[12].hasPrefix("no") }.count)
        let files = Self.corpus.appendingPathComponent("files").path
        let sums = try await runToolChecked("/bin/sh", ["-c", "cd \"$0\" && find . -type f ! -name LICENSE -exec sha256sum {} +", files])
            .standardOutput.split(separator: "\n").map { $0.split(separator: " ", maxSplits: 1).map { String($0).trimmingCharacters(in: .whitespaces) } }
        // `./OWNER__REPO/…/NAME` → its sha256.
        let byPath = Dictionary(uniqueKeysWithValues: sums.map { ($0[1], $0[0]) })
        for row in vendored {
            let project = row[0].replacingOccurrences(of: "/", with: "__"), name = (row[2] as NSString).lastPathComponent
            let matches = byPath.filter { $0.key.hasPrefix("./\(project)/") && $0.key.hasSuffix("/" + name) && $0.value == row[4] }
            #expect(matches.count == 1, "\(row[0]) \(row[2]) at \(row[3].prefix(8)): one file with sha256 \(row[4])")
            #expect(FileManager.default.fileExists(atPath: "\(files)/\(project)/LICENSE"), "\(row[0]): its licence")
        }
        #expect(byPath.values.allSatisfy { sum in vendored.contains { $0[4] == sum } }, "no file the manifest does not pin")
    }

    /// The `update …` lines a running driver printed, without the word.
    static func updates(_ app: ChildProcess) -> [String] { updates(app.standardOutput) }

    /// The `update …` lines of `output`, without the word.
    static func updates(_ output: String) -> [String] {
        output.split(separator: "\n").filter { $0.hasPrefix("update ") }.map { String($0.dropFirst(7)) }
    }

    /// Whether the file's code hears `phase` at all: a loss says nothing to a file told only of
    /// regained connections, and a move changes no answer a file compares or is asked for.
    static func hears(_ file: File, _ phase: String) -> Bool {
        switch (file.telling, phase) {
        case (.regained, "loss"), (.regained, "move"), (.changes, "move"), (.wirelessOnly, _): return false
        case (.firstReachable, let phase): return phase == "bring-up"
        default: return true
        }
    }

    /// Runs `change`, then waits for each file that hears it to say so: a new update whose last says
    /// up (through `interface` where the file names one), or down.
    static func phase(_ apps: [(File, ChildProcess)], _ build: Build, _ phase: String, up: Bool, interface: String? = nil,
                      _ change: () async throws -> Void) async throws {
        let before = apps.map { Self.updates($0.1).count }
        try await change()
        for ((file, app), count) in zip(apps, before) where hears(file, phase) {
            try await waitForLast(file, app, up: up, interface: interface, "\(build) after the \(phase)", after: count)
        }
    }

    /// Waits until the file's last update (one after the first `after`) says up (through `interface`
    /// where the file names one) or down.
    static func waitForLast(_ file: File, _ app: ChildProcess, up: Bool, interface: String? = nil, _ when: String,
                            after: Int) async throws {
        let expected: String
        switch (file.telling, up) {
        case (.regained, true), (.firstReachable, true): expected = "regained"
        case (.somethingChanged, _): expected = "changed"
        case (.everyPath(namesInterface: true), true): expected = "up " + (interface ?? "")
        case (_, true): expected = "up"
        case (_, false): expected = "down"
        }
        // A file that does not say it is one issue of the run; the other files go on being checked.
        do {
            try await eventually(timeout: .seconds(10), "\(file) says `\(expected)` \(when):\n\(app.standardOutput)\(app.standardError)") {
                let updates = Self.updates(app)
                return updates.count > after && updates.last == expected
            }
        } catch {
            Issue.record(error)
        }
    }
}
