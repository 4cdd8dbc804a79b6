import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// The Debian package (`Scripts/package`), as an administrator meets it: it holds the files a
/// system component needs, passes lintian, installs into a root, starts by D-Bus activation
/// from the service file it installed, and is removed with nothing left behind.
///
/// The package is built once for the suite (a release build: minutes the first time) and
/// installed with `dpkg --root` into a scratch root with a dpkg database and log of its own, so
/// the machine's own packages are never touched; its maintainer scripts run outside a chroot
/// (the root holds no shell) with DPKG_ROOT naming the root, so the user they create and remove
/// is the root's, never the machine's.
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
        // The system instance (reachd --system).
        "./usr/lib/systemd/system/reachd.service",
        "./usr/share/dbus-1/system-services/io.reachd.Reachability1.service",
        "./usr/share/dbus-1/system.d/io.reachd.Reachability1.conf",
        "./usr/lib/sysusers.d/reachd.conf",
        // Without systemd: the init script and BusyBox init's line.
        "./etc/init.d/reachd", "./usr/share/reachd/inittab",
    ]

    /// The account files of the scratch root before the package came, as on any system: root only.
    static let accounts = [
        "passwd": "root:x:0:0:root:/root:/bin/bash\n", "group": "root:x:0:\n",
        "shadow": "root:*:19000:0:99999:7:::\n", "gshadow": "root:*::\n",
    ]

    @Test("the package holds the binaries, activation files, user and system units, bus policy, sysusers entry, init script, inittab line, interfaces, pages, completions and copyright, and depends on libdbus and a systemd-sysusers")
    func packageContents() async throws {
        let deb = try await Self.package.value
        let listing = try await runToolChecked("dpkg-deb", ["--contents", deb])
        let files = Set(listing.standardOutput.split(separator: "\n").filter { $0.hasPrefix("-") }
            .compactMap { $0.split(separator: " ").last.map(String.init) })
        // One program (issue 45): reachctl is a link to reachd in the same folder, which a
        // listing shows as `./usr/bin/reachctl -> reachd`.
        let links = Set(listing.standardOutput.split(separator: "\n").filter { $0.hasPrefix("l") }
            .compactMap { line in line.split(separator: " ").suffix(3).first.map(String.init) })
        #expect(listing.standardOutput.contains("./usr/bin/reachctl -> reachd"), "\(listing.standardOutput)")
        let entries = files.union(links)
        #expect(entries == Self.expectedFiles, "missing: \(Self.expectedFiles.subtracting(entries)), extra: \(entries.subtracting(Self.expectedFiles))")
        let depends = try await runToolChecked("dpkg-deb", ["--field", deb, "Depends"]).standardOutput
        #expect(depends.contains("libdbus-1-3"), "Depends: \(depends)")
        #expect(depends.contains("libidn2-0"), "Depends: \(depends)")
        #expect(depends.contains("systemd | systemd-standalone-sysusers | systemd-sysusers"), "Depends: \(depends)")
        // The session instance wants a session bus, the system instance none: a server need not have one.
        #expect(!depends.contains("dbus-session-bus"), "Depends: \(depends)")
        let recommends = try await runToolChecked("dpkg-deb", ["--field", deb, "Recommends"]).standardOutput
        #expect(recommends == "default-dbus-session-bus | dbus-session-bus\n", "Recommends: \(recommends)")
        // One conffile, the init script: the system instance runs without /etc/reachd/reachd.conf.
        let control = try await runToolChecked("dpkg-deb", ["--info", deb]).standardOutput
        #expect(control.contains(" postinst ") && control.contains(" prerm ") && control.contains(" postrm "), "\(control)")
        let conffiles = try await runToolChecked("dpkg-deb", ["--info", deb, "conffiles"]).standardOutput
        #expect(conffiles == "/etc/init.d/reachd\n", "\(conffiles)")
    }

    /// Scripts/package fails on lintian's errors; its warnings are held here, the reachd package's
    /// (maintainer scripts, units, the sysusers entry) and the GIO module's.
    @Test("lintian finds neither an error nor a warning in the packages")
    func lintianClean() async throws {
        let deb = try await Self.package.value
        let folder = (deb as NSString).deletingLastPathComponent
        let packages = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".deb") }.sorted()
        #expect(packages.count == 2, "\(packages)")
        for package in packages {
            let result = try await runTool("lintian", ["--fail-on", "error,warning", "\(folder)/\(package)"], timeout: .seconds(300))
            let findings = result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("E:") || $0.hasPrefix("W:") }
            #expect(result.succeeded && findings.isEmpty, "\(package): \(result.transcript)")
        }
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

    /// `dpkg --root=ROOT` with the root's own log, maintainer scripts run without chroot(2)
    /// (DPKG_ROOT=ROOT), and dependencies not checked: the root has no libc6 or libdbus in its
    /// database; the machine has them.
    @discardableResult
    static func dpkg(root: String, _ arguments: String...) async throws -> ToolResult {
        try await runToolChecked("dpkg", ["--root=\(root)", "--log=\(root)/var/log/dpkg.log", "--force-depends",
                                          "--force-script-chrootless"] + arguments)
    }

    /// The user named `name` in the scratch root's `file` (passwd or group), as its fields.
    static func account(_ name: String, in file: String, root: String) -> [Substring]? {
        let text = (try? String(contentsOfFile: "\(root)/etc/\(file)", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").first { $0.hasPrefix("\(name):") }?.split(separator: ":", omittingEmptySubsequences: false)
    }

    @Test("installed into a root it creates user reachd there, starts by D-Bus activation from its own service file, and purging leaves nothing behind, user included")
    func installActivateRemove() async throws {
        let deb = try await Self.package.value
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-root-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for folder in ["var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers", "var/log", "etc"] {
            try FileManager.default.createDirectory(atPath: "\(root)/\(folder)", withIntermediateDirectories: true)
        }
        #expect(FileManager.default.createFile(atPath: "\(root)/var/lib/dpkg/status", contents: nil))
        for (file, text) in Self.accounts {
            #expect(FileManager.default.createFile(atPath: "\(root)/etc/\(file)", contents: Data(text.utf8)))
        }
        // The machine's own user reachd (SystemInstanceTests make it) must not be touched.
        let machineUser = getpwnam("reachd").map { $0.pointee.pw_uid }
        try await Self.dpkg(root: root, "--install", deb)
        let installed = try await runToolChecked("dpkg", ["--root=\(root)", "--listfiles", "reachd"]).standardOutput
        for file in Self.expectedFiles {
            #expect(installed.contains(file.dropFirst()), "dpkg lists \(file)")
        }
        // postinst made user reachd and its group from the package's sysusers.d entry, in the root.
        let user = Self.account("reachd", in: "passwd", root: root)
        #expect(user.map { $0[5] == "/nonexistent" && $0[6] == "/usr/sbin/nologin" } == true, "\(String(describing: user))")
        #expect(user?[3] == Self.account("reachd", in: "group", root: root)?[2], "reachd's own group")
        // Nothing is enabled: the bus starts the system instance, or the administrator enables it.
        // The init script is registered disabled (K links only, as update-rc.d defaults-disabled makes).
        #expect(!FileManager.default.fileExists(atPath: "\(root)/etc/systemd"))
        let links = Set(try FileManager.default.contentsOfDirectory(atPath: "\(root)/etc").filter { $0.hasPrefix("rc") }
            .flatMap { folder in try FileManager.default.contentsOfDirectory(atPath: "\(root)/etc/\(folder)").map { "\(folder)/\($0)" } })
        #expect(!links.isEmpty && links.allSatisfy { $0.hasSuffix("/K01reachd") }, "\(links.sorted())")

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

        // As `systemctl enable reachd` leaves it: purge removes the link to the unit it removed.
        let wants = "\(root)/etc/systemd/system/multi-user.target.wants"
        try FileManager.default.createDirectory(atPath: wants, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: "\(wants)/reachd.service", withDestinationPath: "/usr/lib/systemd/system/reachd.service")

        try await Self.dpkg(root: root, "--purge", "reachd")
        #expect(Self.account("reachd", in: "passwd", root: root) == nil && Self.account("reachd", in: "group", root: root) == nil,
                "purge removes the user and group postinst created")
        for (file, text) in Self.accounts {
            #expect((try? String(contentsOfFile: "\(root)/etc/\(file)", encoding: .utf8)) == text, "/etc/\(file) as before the package")
        }
        // What is left: the account files (and the backups and lock their tools keep beside them),
        // the folder of the enablement link, and dpkg's database and log.
        // And the runlevel folders update-rc.d made (a system has them already; they are not the package's).
        let expected: Set<String> = Set(Self.accounts.keys.flatMap { ["etc/\($0)", "etc/\($0)-"] })
            .union(["etc", "etc/.pwd.lock", "etc/systemd", "etc/systemd/system", "etc/systemd/system/multi-user.target.wants"])
            .union((0...6).map { "etc/rc\($0).d" })
        let left = try FileManager.default.subpathsOfDirectory(atPath: root)
            .filter { !$0.hasPrefix("var/lib/dpkg") && $0 != "var/log/dpkg.log" && !["var", "var/lib", "var/log"].contains($0) }
        #expect(Set(left).subtracting(expected).isEmpty, "left behind after purge: \(Set(left).subtracting(expected).sorted())")
        #expect(!FileManager.default.fileExists(atPath: "\(root)/usr"))
        #expect(FileManager.default.fileExists(atPath: "\(root)/var/log/dpkg.log"), "dpkg logged into the root, not the machine's log")
        #expect(getpwnam("reachd").map { $0.pointee.pw_uid } == machineUser, "the machine's own user reachd is as it was")
    }

    /// A server's dpkg database: each package the reachd package depends on (the first of each
    /// alternative) as installed, at this machine's version, and nothing else; so no package
    /// that provides a session bus (dbus-session-bus).
    static func serverStatus(for deb: String) async throws -> String {
        let depends = try await runToolChecked("dpkg-deb", ["--field", deb, "Depends"]).standardOutput
        var stanzas: [String] = []
        for clause in depends.split(separator: ",") {
            let first = clause.split(separator: "|")[0].trimmingCharacters(in: .whitespacesAndNewlines)
            let name = String(first.prefix { $0 != " " && $0 != "(" && $0 != ":" })
            let fields = try await runToolChecked("dpkg-query", ["-W", "-f=${Version} ${Architecture}", name]).standardOutput
                .split(separator: " ").map(String.init)
            guard fields.count == 2 else { throw TestFailure("dpkg-query \(name): \(fields)") }
            stanzas.append("""
                Package: \(name)
                Status: install ok installed
                Priority: optional
                Maintainer: reachd tests <tests@reachd.invalid>
                Architecture: \(fields[1])
                Version: \(fields[0])
                Description: \(name) as this machine has it

                """)
        }
        return stanzas.joined(separator: "\n")
    }

    @Test("on a server with no session bus package, dpkg installs it with its dependencies checked and configures the system instance's user")
    func installsWithoutASessionBus() async throws {
        let deb = try await Self.package.value
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-server-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for folder in ["var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers", "var/log", "etc"] {
            try FileManager.default.createDirectory(atPath: "\(root)/\(folder)", withIntermediateDirectories: true)
        }
        let status = try await Self.serverStatus(for: deb)
        #expect(!status.contains("dbus-session-bus") && !status.contains("dbus-user-session") && !status.contains("dbus-x11"), "\(status)")
        try status.write(toFile: "\(root)/var/lib/dpkg/status", atomically: false, encoding: .utf8)
        for (file, text) in Self.accounts {
            #expect(FileManager.default.createFile(atPath: "\(root)/etc/\(file)", contents: Data(text.utf8)))
        }
        // No --force-depends: dpkg checks Depends against the server's database.
        let install = try await runTool("dpkg", ["--root=\(root)", "--log=\(root)/var/log/dpkg.log", "--force-script-chrootless", "--install", deb])
        #expect(install.succeeded, "\(install.transcript)")
        let state = try await runTool("dpkg-query", ["--root=\(root)", "-W", "-f=${Status}", "reachd"])
        #expect(state.standardOutput == "install ok installed", "\(state.transcript)")
        #expect(Self.account("reachd", in: "passwd", root: root) != nil, "postinst made the system instance's user")
        try await Self.dpkg(root: root, "--purge", "reachd")
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
