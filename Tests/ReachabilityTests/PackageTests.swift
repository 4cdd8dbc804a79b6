import Foundation
import Glibc
import TestSupport
import Testing

/// The Debian package (`Scripts/package`), as an administrator meets it: it holds the files a
/// system component needs, passes lintian, installs into a root, starts by D-Bus activation
/// from the service file it installed, and is removed with nothing left behind.
///
/// The package is built once for the suite (a release build: minutes the first time) and
/// installed with `dpkg --root` into a scratch root with a dpkg database and a log of its own
/// (`--log`: `--root` alone still logs to the machine's /var/log/dpkg.log), so the machine's own
/// packages and their history are never touched.
@Suite("Debian package", .serialized, .timeLimit(.minutes(20)))
struct PackageTests {
    /// Built once per test run, shared by the tests.
    static let package = Task<String, any Error> {
        // Beside its build, replacing the last run's package, so runs leave nothing in /tmp.
        let output = "\(scratchPath)/deb"
        try? FileManager.default.removeItem(atPath: output)
        // Its own build folder: `swift test` holds .build's lock while it runs.
        let result = try await runTool(Executables.packageRoot.appendingPathComponent("Scripts/package").path,
                                       ["--output", output], environment: ["REACHD_SCRATCH_PATH": Self.scratchPath],
                                       timeout: .seconds(1200))
        guard result.succeeded, let path = result.standardOutput.split(separator: "\n").last.map(String.init),
              path.hasSuffix(".deb") else {
            throw TestFailure("Scripts/package failed (lintian errors fail it too): \(result.transcript)")
        }
        return path
    }

    /// Kept between runs (ignored by git, as .build is), so only the first run builds from scratch.
    static let scratchPath = Executables.packageRoot.appendingPathComponent(".build-package").path

    static let expectedFiles: Set<String> = [
        "./usr/bin/reachd", "./usr/bin/reachctl",
        "./usr/share/dbus-1/services/io.reachd.Reachability1.service",
        "./usr/lib/systemd/user/reachd.service",
        "./usr/lib/systemd/user/reachd-online.target", "./usr/lib/systemd/user/reachd-wait-online.service",
        "./usr/share/dbus-1/interfaces/io.reachd.Reachability1.xml",
        "./usr/share/dbus-1/interfaces/io.reachd.Reachability1.Monitor.xml",
        "./usr/share/man/man1/reachctl.1.gz", "./usr/share/man/man8/reachd.8.gz",
        "./usr/share/bash-completion/completions/reachctl",
        "./usr/share/zsh/vendor-completions/_reachctl",
        "./usr/share/fish/vendor_completions.d/reachctl.fish",
        "./usr/share/doc/reachd/copyright", "./usr/share/doc/reachd/changelog.gz",
    ]

    @Test("the package holds the binaries, activation file, user unit, interfaces, pages, completions and copyright, and depends on libdbus")
    func packageContents() async throws {
        let deb = try await Self.package.value
        let listing = try await runToolChecked("dpkg-deb", ["--contents", deb])
        let files = Set(listing.standardOutput.split(separator: "\n").filter { $0.hasPrefix("-") }
            .compactMap { $0.split(separator: " ").last.map(String.init) })
        #expect(files == Self.expectedFiles, "missing: \(Self.expectedFiles.subtracting(files)), extra: \(files.subtracting(Self.expectedFiles))")
        let depends = try await runToolChecked("dpkg-deb", ["--field", deb, "Depends"]).standardOutput
        #expect(depends.contains("libdbus-1-3"), "Depends: \(depends)")
        #expect(depends.contains("libidn2-0"), "Depends: \(depends)")
    }

    /// `String.contains(String)`, `split(separator: String)` and friends live in _StringProcessing,
    /// which brings the regex engine: +1.65 MB stripped and +0.8 MiB of idle RSS for reachd, from
    /// one call that a loop over characters does as well. The unstripped release build the
    /// package was made from still has the symbols to tell.
    @Test("reachd links no regex engine (_StringProcessing, _RegexParser)")
    func reachdLinksNoRegexEngine() async throws {
        _ = try await Self.package.value
        let reachd = "\(Self.scratchPath)/release/reachd"
        let symbols = try await runToolChecked("nm", [reachd]).standardOutput
        for module in ["17_StringProcessing", "12_RegexParser"] {
            let count = symbols.split(separator: "\n").filter { $0.contains(module) }.count
            #expect(count == 0, "\(count) symbols of \(module) in \(reachd)")
        }
    }

    @Test("installed into a root it starts by D-Bus activation from its own service file, and purging leaves nothing behind")
    func installActivateRemove() async throws {
        let deb = try await Self.package.value
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-root-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for folder in ["lib/dpkg/info", "lib/dpkg/updates", "lib/dpkg/triggers", "log"] {
            try FileManager.default.createDirectory(atPath: "\(root)/var/\(folder)", withIntermediateDirectories: true)
        }
        #expect(FileManager.default.createFile(atPath: "\(root)/var/lib/dpkg/status", contents: nil))
        let log = "\(root)/var/log/dpkg.log"
        // The scratch root has no libc6 or libdbus in its database; the machine has them.
        try await runToolChecked("dpkg", ["--root=\(root)", "--log=\(log)", "--force-depends", "--install", deb])
        let logged = try String(contentsOfFile: log, encoding: .utf8)
        #expect(logged.contains(" install reachd:"), "dpkg logged into the root's own log: \(logged)")
        let installed = try await runToolChecked("dpkg", ["--root=\(root)", "--listfiles", "reachd"]).standardOutput
        for file in Self.expectedFiles {
            #expect(installed.contains(file.dropFirst()), "dpkg lists \(file)")
        }

        // The session bus reads the installed service file; its Exec= names /usr/bin, so point it into the root.
        let services = "\(root)/usr/share/dbus-1/services"
        let serviceFile = "\(services)/io.reachd.Reachability1.service"
        let original = try String(contentsOfFile: serviceFile, encoding: .utf8)
        #expect(original.contains("Exec=/usr/bin/reachd\n"), "\(original)")
        try original.replacingOccurrences(of: "Exec=/usr/bin/reachd", with: "Exec=\(root)/usr/bin/reachd")
            .write(toFile: serviceFile, atomically: false, encoding: .utf8)
        let session = try PrivateBus(.session, serviceDirectory: services)
        defer { session.stop() }
        // As a desktop session does: the activated reachd inherits this, never the machine's system bus.
        let environment = try await session.dbusSend(["--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                    "org.freedesktop.DBus.UpdateActivationEnvironment",
                                    "dict:string:string:DBUS_SYSTEM_BUS_ADDRESS,\(absentSystemBusAddress())"])
        #expect(environment.succeeded, "\(environment.transcript)")
        let status = try await runTool("\(root)/usr/bin/reachctl", ["status", "--json"],
                                       environment: ["DBUS_SESSION_BUS_ADDRESS": session.address])
        #expect(status.succeeded && status.standardOutput.contains("\"backend\":\"netlink\""), "\(status.transcript)")
        let pid = try #require(try await session.processID(of: "io.reachd.Reachability1"))
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        #expect(executable == "\(root)/usr/bin/reachd")
        kill(pid, SIGTERM)
        try await eventually(timeout: .seconds(10), "the activated reachd exits") { kill(pid, 0) != 0 }

        try await runToolChecked("dpkg", ["--root=\(root)", "--log=\(log)", "--purge", "reachd"])
        let left = try FileManager.default.subpathsOfDirectory(atPath: root).filter { !$0.hasPrefix("var") }
        #expect(left.isEmpty, "left behind after purge: \(left)")
        #expect(!FileManager.default.fileExists(atPath: "\(root)/usr"))
    }

    @Test("every option reachctl(1) documents is one reachctl takes, and man -l renders both pages")
    func installedPagesMatchThePrograms() async throws {
        let deb = try await Self.package.value
        let tree = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-deb-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: tree) }
        try await runToolChecked("dpkg-deb", ["--extract", deb, tree])
        var rendered: [String: String] = [:]
        for (file, name) in [("man1/reachctl.1.gz", "reachctl"), ("man8/reachd.8.gz", "reachd")] {
            let result = try await runTool("man", ["--warnings", "-l", "\(tree)/usr/share/man/\(file)"],
                                           environment: ["MANPAGER": "cat", "MANWIDTH": "80", "LC_ALL": "C"])
            #expect(result.succeeded && result.standardError.isEmpty && result.standardOutput.contains(name), "\(file): \(result.transcript)")
            rendered[name] = result.standardOutput
        }
        // Options as a reader sees them (the page is mdoc: `.Fl -json` is --json).
        let documented = ManualPageTests.options(in: rendered["reachctl"] ?? "")
        var accepted: Set<String> = []
        for command in [[], ["status"], ["watch"], ["host"], ["wait"]] {
            let help = try await runToolChecked("\(tree)/usr/bin/reachctl", command + ["--help"]).standardOutput
            accepted.formUnion(ManualPageTests.options(in: help))
        }
        #expect(documented.isSuperset(of: ["--json", "--timeout", "--host", "--watch"]), "\(documented)")
        #expect(documented.subtracting(accepted).isEmpty, "reachctl(1) documents options reachctl does not take: \(documented.subtracting(accepted))")
        #expect(accepted.subtracting(documented).isEmpty, "reachctl takes options reachctl(1) does not document: \(accepted.subtracting(documented))")

        // The completions are reachctl's own, where each shell looks for them.
        for (shell, file) in [("bash", "bash-completion/completions/reachctl"), ("zsh", "zsh/vendor-completions/_reachctl"),
                              ("fish", "fish/vendor_completions.d/reachctl.fish")] {
            let generated = try await runToolChecked("\(tree)/usr/bin/reachctl", ["--generate-completion-script", shell]).standardOutput
            let installed = try String(contentsOfFile: "\(tree)/usr/share/\(file)", encoding: .utf8)
            #expect(installed.contains("timeout") && generated.hasSuffix(installed), "\(shell) completion at \(file)")
        }
    }
}
