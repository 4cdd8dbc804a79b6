import Glibc

/// The locale variables that choose the language of status strings, read from the process's
/// environment without Foundation (which would carry ICU's 36 MB into every client).
enum LocaleEnvironment {
    static var current: [String: String] {
        var values: [String: String] = [:]
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = getenv(name) { values[name] = String(cString: value) }
        }
        return values
    }
}
