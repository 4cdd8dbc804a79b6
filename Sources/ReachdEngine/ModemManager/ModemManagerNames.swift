import ReachdDBus

/// ModemManager's names on the system bus, spelled once.
enum ModemManagerNames {
    static let bus: BusName = "org.freedesktop.ModemManager1"
    static let rootPath: ObjectPath = "/org/freedesktop/ModemManager1"
    static let modemsPath: ObjectPath = "/org/freedesktop/ModemManager1/Modem"
    static let modemInterface: InterfaceName = "org.freedesktop.ModemManager1.Modem"
    static let objectManagerInterface: InterfaceName = "org.freedesktop.DBus.ObjectManager"
}
