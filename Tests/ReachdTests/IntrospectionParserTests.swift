import ReachdTestSupport
import Testing

/// The parser the contract tests read dbus/*.xml and Introspect replies with refuses what a
/// conforming XML parser refuses, so a file that gdbus-codegen or Python cannot read fails the
/// contract test too. Each sample is also given to expat (python3's xml.dom.minidom, the parser
/// gdbus-codegen uses), which must agree: the samples are XML's rules, not ours.
@Suite("the introspection parser refuses what XML refuses", .timeLimit(.minutes(1)))
struct IntrospectionParserTests {
    struct Sample: Sendable, CustomTestStringConvertible {
        let label: String
        let xml: String
        /// The line where the document stops being XML.
        var line = 1
        var testDescription: String { label }
    }

    /// The head of dbus/io.reachd.Reachability1.xml as it shipped until issue 22: the comment's
    /// `(no --share=network)` made the whole file unreadable to gdbus-codegen
    /// ("not well-formed (invalid token): line 14, column 8").
    static let oldHeader = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <!--
          io.reachd.Reachability1 — contract version 1.

          Bus name io.reachd.Reachability1 on the session bus, object /io/reachd/Reachability1.
          AFNetworkReachabilityManager's model for the whole desktop: Status is
          AFNetworkReachabilityStatus, Flags are SCNetworkReachabilityFlags.
          This file is the source of truth; a test holds the service's Introspect reply to it.

          Errors (io.reachd.Reachability1.Error.*): InvalidHost, LimitExceeded, NotOwner, TryAgain, and
          NotAllowed: the answer to every method and property read of this interface and of
          io.reachd.Reachability1.Monitor when the caller is a Flatpak app without network access
          (no --share=network), as xdg-desktop-portal's NetworkMonitor refuses it. Introspectable
          and Peer stay open; broadcast signals are not filtered.
        -->
        <node name="/io/reachd/Reachability1">
          <interface name="io.reachd.Reachability1">
            <method name="GetStatus">
              <arg type="i" name="status" direction="out"/>
              <arg type="u" name="flags" direction="out"/>
            </method>
          </interface>
        </node>

        """

    static let malformed: [Sample] = [
        Sample(label: "the old header of io.reachd.Reachability1.xml, with -- in its comment", xml: oldHeader, line: 14),
        Sample(label: "a comment that ends in --->", xml: #"<node><!-- a ---><interface name="a.B"/></node>"#),
        Sample(label: "a comment not closed", xml: #"<node><!-- open <interface name="a.B"/></node>"#),
        Sample(label: "an end tag that does not match", xml: #"<node><interface name="a.B"></node></interface>"#),
        Sample(label: "an element not closed", xml: #"<node><interface name="a.B"></interface>"#),
        Sample(label: "a start tag not closed", xml: #"<node><interface name="a.B""#),
        Sample(label: "an undefined entity", xml: #"<node><interface name="a&nbsp;B"/></node>"#),
        Sample(label: "an & that starts no reference", xml: #"<node><interface name="a&B"/></node>"#),
        Sample(label: "a reference to a character XML does not allow", xml: #"<node><interface name="a&#1;B"/></node>"#),
        Sample(label: "a character reference with a sign", xml: #"<node><interface name="a&#+65;B"/></node>"#),
        Sample(label: "an attribute without quotes", xml: #"<node><interface name=a.B/></node>"#),
        Sample(label: "an attribute given twice", xml: #"<node><interface name="a.B" name="a.C"/></node>"#),
        Sample(label: "attributes without space between them", xml: #"<node><property name="A"type="s" access="read"/></node>"#),
        Sample(label: "< in an attribute value", xml: #"<node><interface name="a<B"/></node>"#),
        Sample(label: "text after the root element", xml: #"<node/>text"#),
        Sample(label: "text before the root element", xml: #"text<node/>"#),
        Sample(label: "a second root element", xml: #"<node/><node/>"#),
        Sample(label: "no root element", xml: #"<!-- nothing -->"#),
        Sample(label: "an XML declaration not at the start", xml: "\n<?xml version=\"1.0\"?><node/>", line: 2),
        Sample(label: "a control character in text", xml: "<node>\u{1}</node>"),
        Sample(label: "]]> in text", xml: "<node>a]]>b</node>"),
        Sample(label: "a document type declaration after the root element", xml: "<node/><!DOCTYPE node>"),
    ]

    @Test("each malformed document is refused at the line where expat stops", arguments: malformed)
    func refusesMalformedDocument(_ sample: Sample) async throws {
        var refusal: XMLSyntaxError?
        do {
            _ = try IntrospectionDocument(xml: sample.xml)
        } catch let error as XMLSyntaxError {
            refusal = error
        }
        #expect(refusal?.line == sample.line, "our parser: \(refusal.map(String.init(describing:)) ?? "accepted it")")
        let expat = try await ExpatReading.text(sample.xml)
        #expect(!expat.isWellFormed, "expat accepts it, so XML does: \(expat.result.transcript)")
        #expect(expat.error.contains("line \(sample.line),"), "expat: \(expat.error)")
    }

    /// Forms XML allows and introspection data may use: the declaration, single quotes, space
    /// around `=`, references, CDATA, processing instructions, comments with single hyphens.
    static let wellFormed = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <!-- a comment - with single hyphens - and <markup> in it --><!---->
        <?generator reachd?>
        <node name='/a/B'>
          <interface name = 'a.B'>
            <method name="Get&#x53;tatus"><arg type="i" name="&quot;status&quot; &amp; more" direction="out"/></method>
            <signal name="Changed"><![CDATA[ <not an element> ]]></signal>
            <property name="Flags" type="u" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="const"/>
              <annotation name="org.qtproject.QtDBus.QtTypeName" value="uint"/>
            </property>
          </interface>
          <node name="child"/>
        </node>

        """

    @Test("a document in XML's other forms reads as expat reads it")
    func readsWellFormedDocumentAsExpatDoes() async throws {
        let document = try IntrospectionDocument(xml: Self.wellFormed)
        let expat = try await ExpatReading.text(Self.wellFormed)
        #expect(expat.isWellFormed, "\(expat.result.transcript)")
        let interface = try #require(document.interfaces["a.B"], "read: \(document.interfaces)")
        var members: Set<ExpatReading.Member> = []
        for name in interface.methods.keys { members.insert(.init(kind: "method", interface: "a.B", name: name)) }
        for name in interface.signals.keys { members.insert(.init(kind: "signal", interface: "a.B", name: name)) }
        for name in interface.properties.keys { members.insert(.init(kind: "property", interface: "a.B", name: name)) }
        #expect(members == Set(expat.members))
        #expect(interface.methods["GetStatus"] == [.init(name: "\"status\" & more", type: "i", direction: "out")])
        // Only the bus's own annotations are the contract's; the Qt hint is for qdbusxml2cpp.
        #expect(interface.properties["Flags"]?.annotations == ["org.freedesktop.DBus.Property.EmitsChangedSignal": "const"])
        #expect(document.children == ["child"])
    }
}
