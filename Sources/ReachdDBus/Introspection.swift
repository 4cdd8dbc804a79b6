/// Generates `org.freedesktop.DBus.Introspectable` XML from declarations, so
/// what `busctl introspect` shows can never drift from what is served.
enum Introspection {
    static let header = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">

        """

    /// The standard interfaces every exported object serves.
    static let standardInterfaces = """
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
            <method name="GetMachineId">
              <arg type="s" name="machine_uuid" direction="out"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect">
              <arg type="s" name="xml_data" direction="out"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get">
              <arg type="s" name="interface_name" direction="in"/>
              <arg type="s" name="property_name" direction="in"/>
              <arg type="v" name="value" direction="out"/>
            </method>
            <method name="GetAll">
              <arg type="s" name="interface_name" direction="in"/>
              <arg type="a{sv}" name="properties" direction="out"/>
            </method>
            <method name="Set">
              <arg type="s" name="interface_name" direction="in"/>
              <arg type="s" name="property_name" direction="in"/>
              <arg type="v" name="value" direction="in"/>
            </method>
            <signal name="PropertiesChanged">
              <arg type="s" name="interface_name"/>
              <arg type="a{sv}" name="changed_properties"/>
              <arg type="as" name="invalidated_properties"/>
            </signal>
          </interface>

        """

    /// The document for one node: its interfaces (none for a pure parent
    /// node) and the names of its direct children.
    static func document(interfaces: [InterfaceDeclaration]?, children: [String]) -> String {
        var xml = header + "<node>\n"
        if let interfaces {
            xml += standardInterfaces
            for interface in interfaces { xml += self.interface(interface) }
        }
        for child in children { xml += "  <node name=\"\(child)\"/>\n" }
        xml += "</node>\n"
        return xml
    }

    static func interface(_ interface: InterfaceDeclaration) -> String {
        var xml = "  <interface name=\"\(interface.name)\">\n"
        for method in interface.methods {
            let arguments = method.inputs.map { argument($0, direction: "in") }
                + method.outputs.map { argument($0, direction: "out") }
            xml += element("method", name: method.name.rawValue, children: arguments)
        }
        for signal in interface.signals {
            xml += element("signal", name: signal.name.rawValue, children: signal.arguments.map { argument($0, direction: nil) })
        }
        for property in interface.properties {
            let access = property.isWritable ? "readwrite" : "read"
            let open = "    <property name=\"\(property.name)\" type=\"\(property.signature)\" access=\"\(access)\""
            if property.changeSignal == .emits {
                xml += open + "/>\n"
            } else {
                xml += open + ">\n"
                xml += "      <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"\(property.changeSignal.rawValue)\"/>\n"
                xml += "    </property>\n"
            }
        }
        xml += "  </interface>\n"
        return xml
    }

    private static func argument(_ argument: ArgumentDeclaration, direction: String?) -> String {
        var xml = "      <arg type=\"\(argument.signature)\""
        if !argument.name.isEmpty { xml += " name=\"\(escaped(argument.name))\"" }
        if let direction { xml += " direction=\"\(direction)\"" }
        return xml + "/>\n"
    }

    private static func element(_ kind: String, name: String, children: [String]) -> String {
        if children.isEmpty { return "    <\(kind) name=\"\(name)\"/>\n" }
        return "    <\(kind) name=\"\(name)\">\n" + children.joined() + "    </\(kind)>\n"
    }

    /// Argument names are free text in declarations; member and type names
    /// are validated and never need escaping.
    private static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }
}
