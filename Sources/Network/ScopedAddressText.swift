import Glibc

/// An address as text, split at its scope: `fe80::1%eth0` is `fe80::1` on `eth0`.
struct ScopedAddressText {
    let parts: (address: String, scope: String?)

    init(_ text: String) {
        guard let percent = text.firstIndex(of: "%") else {
            parts = (text, nil)
            return
        }
        let scope = String(text[text.index(after: percent)...])
        parts = (String(text[..<percent]), scope.isEmpty ? nil : scope)
    }
}

extension NWInterface {
    /// The interface an address's scope names. Its type is not in the text: `.other`.
    init(scope name: String) {
        self.init(name: name, type: .other, index: Int(if_nametoindex(name)))
    }
}
