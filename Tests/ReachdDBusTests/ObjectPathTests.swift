import ReachdDBus
import Testing

/// Object paths are validated once, where they are made (style point 4).
@Suite("Object paths")
struct ObjectPathTests {
    @Test("malformed paths are refused with InvalidArgs", arguments: [
        "", "a", "/a/", "/a//b", "//", "/a\u{0}b", "/a-b", "/a.b", "/café", "a/b",
    ])
    func malformedPathsAreRefused(_ text: String) {
        #expect(ObjectPath(rawValue: text) == nil)
        do {
            let path = try ObjectPath(text)
            Issue.record("'\(text)' was accepted as \(path)")
        } catch {
            #expect(error.name == "org.freedesktop.DBus.Error.InvalidArgs")
        }
    }

    @Test("well-formed paths are accepted unchanged", arguments: ["/", "/a", "/org/example/Test", "/a_b/C9/_"])
    func wellFormedPathsAreAccepted(_ text: String) throws {
        #expect(try ObjectPath(text).rawValue == text)
    }

    @Test("appending an element and testing containment")
    func appendingAndContainment() throws {
        #expect(try ObjectPath.root.appending("org") == "/org")
        #expect(try ObjectPath("/org/example").appending("Test") == "/org/example/Test")
        #expect(throws: DBusError.self) { try ObjectPath("/org").appending("a/") }
        #expect(throws: DBusError.self) { try ObjectPath("/org").appending("") }
        let test: ObjectPath = "/org/example/Test"
        #expect(test.isInside("/org/example"))
        #expect(test.isInside(test))
        #expect(test.isInside(.root))
        #expect(!ObjectPath("/org/examples").isInside("/org/example"))
        #expect(!ObjectPath("/org").isInside("/org/example"))
    }
}
