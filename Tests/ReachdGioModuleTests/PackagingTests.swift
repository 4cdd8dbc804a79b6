import Foundation
import Glibc
import ReachdTestSupport
import Testing

extension ReachdGioModuleTests {
    /// The module as shipped: what it exports and links, where Scripts/install puts it (with GIO's
    /// cache; into staged roots, never the machine's own folders), and the reachd-gio-module
    /// package Scripts/package builds beside reachd's.
    @Suite("The module as installed and packaged", .serialized, .timeLimit(.minutes(20)))
    struct PackagingTests {
        /// Release builds for Scripts/install and Scripts/package share PackageTests' folder (kept
        /// between runs, ignored by git), so the release build is made once for both targets.
        static let scratchPath = ModuleBuilds.packageRoot + "/.build-package"
        static let giomoduledir = "/usr/lib/x86_64-linux-gnu/gio/modules"

        @Test("it exports only g_io_module_load, g_io_module_unload and g_io_module_query, and links GLib and libc only")
        func exportsAndLinks() async throws {
            let module = try await ModuleBuild.plain.directory() + "/libgioreachd.so"
            let symbols = try await runToolChecked("nm", ["--dynamic", "--defined-only", module]).standardOutput
                .split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
            #expect(symbols.sorted() == ["g_io_module_load", "g_io_module_query", "g_io_module_unload"], "\(symbols)")
            let needed = try await runToolChecked("readelf", ["--dynamic", module]).standardOutput
                .split(separator: "\n").filter { $0.contains("(NEEDED)") }
                .compactMap { $0.split(separator: "[").last?.split(separator: "]").first.map(String.init) }
            #expect(Set(needed) == ["libgio-2.0.so.0", "libgobject-2.0.so.0", "libglib-2.0.so.0", "libc.so.6"], "\(needed)")
        }

        /// `Scripts/install` as a user runs it, into the staged root `destination`, with neither
        /// PREFIX nor GIOMODULEDIR from the test's own environment unless given.
        static func install(_ arguments: [String] = [], destination: String, environment: [String: String] = [:]) async throws -> ToolResult {
            let unset = ["PREFIX", "GIOMODULEDIR"].filter { environment[$0] == nil }.flatMap { ["-u", $0] }
            return try await runTool("/usr/bin/env", unset + [ModuleBuilds.packageRoot + "/Scripts/install"] + arguments,
                              environment: ["DESTDIR": destination, "REACHD_SCRATCH_PATH": Self.scratchPath].merging(environment) { $1 },
                              timeout: .seconds(1200))
        }

        static func makeDestination() throws -> String {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-gio-root-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            return path
        }

        /// GLib loads modules from its giomoduledir and GIO_EXTRA_MODULES only: the README's
        /// `Scripts/install` (PREFIX /usr/local) must put the module there, not under PREFIX. The
        /// staged root has the folder already, as every machine with GLib has, with a cache naming
        /// a module that is gone: gio-querymodules rewrites it each time.
        @Test("Scripts/install with the default prefix puts it in GLib's giomoduledir with GIO's cache naming it, and a GLib app reading that folder gets reachd's monitor; --uninstall takes it away and refreshes the cache")
        func installWhereGLibLooks() async throws {
            let destination = try Self.makeDestination()
            defer { try? FileManager.default.removeItem(atPath: destination) }
            let staged = destination + Self.giomoduledir
            try FileManager.default.createDirectory(atPath: staged, withIntermediateDirectories: true)
            try "libgone.so: gio-vfs\n".write(toFile: "\(staged)/giomodule.cache", atomically: false, encoding: .utf8)

            let install = try await Self.install(destination: destination)
            try #require(install.succeeded, "\(install.transcript)")
            var status = stat()
            #expect(stat("\(staged)/libgioreachd.so", &status) == 0 && status.st_mode & 0o777 == 0o644, "\(install.transcript)")
            #expect(access("\(destination)/usr/local/lib/x86_64-linux-gnu/gio", F_OK) != 0, "nothing of GIO's under PREFIX")
            let cache = try String(contentsOfFile: "\(staged)/giomodule.cache", encoding: .utf8)
            #expect(cache == "libgioreachd.so: gio-network-monitor\n", "gio-querymodules ran there: \(cache)")
            let manifest = try String(contentsOfFile: "\(destination)/usr/local/share/reachd/install-manifest", encoding: .utf8)
            #expect(manifest.split(separator: "\n").contains("\(Self.giomoduledir)/libgioreachd.so"[...]), "\(manifest)")
            #expect(!install.standardError.contains("GIO_EXTRA_MODULES"), "nothing for the session to set: \(install.transcript)")

            // A GLib app whose GLib reads modules from the staged folder (GIO_MODULE_DIR stands in
            // for the machine's giomoduledir; no GIO_EXTRA_MODULES).
            try await withLab(setUp: wifiConnected) { lab in
                let app = try GLibApp(["default"], session: lab.session.address, system: lab.system.address, modules: nil,
                                      environment: ["GIO_MODULE_DIR": staged])
                defer { app.stop() }
                #expect(try await app.first("default").type == "ReachdNetworkMonitor", "\(app.transcript)")
            }

            let uninstall = try await Self.install(["--uninstall"], destination: destination)
            #expect(uninstall.succeeded, "\(uninstall.transcript)")
            #expect(access("\(staged)/libgioreachd.so", F_OK) != 0, "\(uninstall.transcript)")
            // No module is left there, so gio-querymodules removed the cache; the folder was there before and stays.
            #expect(access("\(staged)/giomodule.cache", F_OK) != 0, "the cache still names the module: \(uninstall.transcript)")
            #expect(access(staged, F_OK) == 0)
            #expect(ScratchTree.files(under: destination).isEmpty, "left behind: \(ScratchTree.files(under: destination))")
        }

        @Test("GIOMODULEDIR puts it elsewhere, with GIO's cache, and says which GIO_EXTRA_MODULES the session needs; --uninstall removes it and the folders made for it")
        func installWhereChosen() async throws {
            let destination = try Self.makeDestination()
            defer { try? FileManager.default.removeItem(atPath: destination) }
            let directory = "/opt/reachd-gio/modules"
            let install = try await Self.install(destination: destination, environment: ["GIOMODULEDIR": directory])
            try #require(install.succeeded, "\(install.transcript)")
            #expect(access("\(destination)\(directory)/libgioreachd.so", F_OK) == 0, "\(install.transcript)")
            #expect(access(destination + Self.giomoduledir, F_OK) != 0, "not in GLib's folder as well")
            let cache = try String(contentsOfFile: "\(destination)\(directory)/giomodule.cache", encoding: .utf8)
            #expect(cache == "libgioreachd.so: gio-network-monitor\n", "\(cache)")
            #expect(install.standardError.contains("GIO_EXTRA_MODULES=\(directory)"), "says how a session uses it: \(install.transcript)")
            let manifest = try String(contentsOfFile: "\(destination)/usr/local/share/reachd/install-manifest", encoding: .utf8)
            for line in ["\(directory)/libgioreachd.so", "/opt/reachd-gio/modules/", "/opt/reachd-gio/", "/opt/"] {
                #expect(manifest.split(separator: "\n").contains(line[...]), "\(line): \(manifest)")
            }

            let uninstall = try await Self.install(["--uninstall"], destination: destination)
            #expect(uninstall.succeeded, "\(uninstall.transcript)")
            #expect(access("\(destination)/opt", F_OK) != 0, "module, cache and the folders made for them are gone: \(uninstall.transcript)")
            #expect(ScratchTree.files(under: destination).isEmpty, "left behind: \(ScratchTree.files(under: destination))")
        }

        @Test("Scripts/package builds reachd-gio-module: the module alone, in the folder libglib2.0-0's trigger watches, depending on this reachd and GLib")
        func secondPackage() async throws {
            let output = "\(Self.scratchPath)/gio-deb"
            try? FileManager.default.removeItem(atPath: output)
            let result = try await runTool(ModuleBuilds.packageRoot + "/Scripts/package", ["--output", output],
                                           environment: ["REACHD_SCRATCH_PATH": Self.scratchPath], timeout: .seconds(1200))
            #expect(result.succeeded, "lintian's errors fail it too: \(result.transcript)")
            let debs = try FileManager.default.contentsOfDirectory(atPath: output)
            let module = try #require(debs.first { $0.hasPrefix("reachd-gio-module_") }, "\(debs)")
            let reachd = try #require(debs.first { $0.hasPrefix("reachd_") }, "\(debs)")
            let version = String(reachd.dropFirst("reachd_".count).prefix { $0 != "_" })

            let listing = try await runToolChecked("dpkg-deb", ["--contents", "\(output)/\(module)"]).standardOutput
            let files = Set(listing.split(separator: "\n").filter { $0.hasPrefix("-") }.compactMap { $0.split(separator: " ").last.map(String.init) })
            #expect(files == [".\(Self.giomoduledir)/libgioreachd.so", "./usr/share/doc/reachd-gio-module/copyright",
                              "./usr/share/doc/reachd-gio-module/changelog.gz"], "\(files)")
            let depends = try await runToolChecked("dpkg-deb", ["--field", "\(output)/\(module)", "Depends"]).standardOutput
            #expect(depends.contains("reachd (= \(version))"), "\(depends)")
            #expect(depends.contains("libglib2.0-0"), "\(depends)")
            let reachdListing = try await runToolChecked("dpkg-deb", ["--contents", "\(output)/\(reachd)"]).standardOutput
            #expect(!reachdListing.contains("libgioreachd"), "the module is in its own package only")

            // Debian's GLib rebuilds the module cache through this file trigger: no maintainer scripts needed.
            let triggers = try FileManager.default.contentsOfDirectory(atPath: "/var/lib/dpkg/info")
                .filter { $0.hasPrefix("libglib2.0-0") && $0.hasSuffix(".triggers") }
            let interest = try triggers.map { try String(contentsOfFile: "/var/lib/dpkg/info/\($0)", encoding: .utf8) }.joined()
            #expect(interest.contains("interest-noawait \(Self.giomoduledir)"), "\(interest)")
            let control = try await runToolChecked("dpkg-deb", ["--info", "\(output)/\(module)"]).standardOutput
            #expect(!control.contains("postinst") && !control.contains("postrm"), "\(control)")
        }
    }
}

/// The regular files under a staged root, as absolute paths inside it.
enum ScratchTree {
    static func files(under root: String) -> Set<String> {
        var files: Set<String> = []
        for relative in (try? FileManager.default.subpathsOfDirectory(atPath: root)) ?? [] {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: "\(root)/\(relative)", isDirectory: &isDirectory), !isDirectory.boolValue {
                files.insert("/\(relative)")
            }
        }
        return files
    }
}
