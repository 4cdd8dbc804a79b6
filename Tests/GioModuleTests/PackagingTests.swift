import Foundation
import Glibc
import TestSupport
import Testing

extension GioModuleTests {
    /// The module as shipped: what it exports and links, where Scripts/install puts it (with GIO's
    /// cache), and the reachd-gio-module package Scripts/package builds beside reachd's.
    @Suite("The module as installed and packaged", .timeLimit(.minutes(20)))
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

        @Test("Scripts/install puts it in giomoduledir under PREFIX, in the manifest, with GIO's cache; --uninstall takes both away")
        func installAndUninstall() async throws {
            let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-gio-prefix-\(UUID().uuidString.prefix(8))").path
            defer { try? FileManager.default.removeItem(atPath: prefix) }
            let script = ModuleBuilds.packageRoot + "/Scripts/install"
            let environment = ["PREFIX": prefix, "REACHD_SCRATCH_PATH": Self.scratchPath]
            let install = try await runTool(script, [], environment: environment, timeout: .seconds(1200))
            #expect(install.succeeded, "\(install.transcript)")
            // GLib's pkg-config file with PREFIX as its prefix.
            let directory = "\(prefix)/lib/x86_64-linux-gnu/gio/modules"
            var status = stat()
            #expect(stat("\(directory)/libgioreachd.so", &status) == 0 && status.st_mode & 0o777 == 0o644)
            let cache = try String(contentsOfFile: "\(directory)/giomodule.cache", encoding: .utf8)
            #expect(cache == "libgioreachd.so: gio-network-monitor\n", "gio-querymodules ran there: \(cache)")
            let manifest = try String(contentsOfFile: "\(prefix)/share/reachd/install-manifest", encoding: .utf8)
            #expect(manifest.split(separator: "\n").contains("\(directory)/libgioreachd.so"[...]), "\(manifest)")
            #expect(install.standardError.contains("GIO_EXTRA_MODULES=\(directory)"), "says how a session uses it: \(install.transcript)")

            let uninstall = try await runTool(script, ["--uninstall"], environment: environment)
            #expect(uninstall.succeeded, "\(uninstall.transcript)")
            #expect(access(directory, F_OK) != 0, "module, cache and the folders made for them are gone")
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
