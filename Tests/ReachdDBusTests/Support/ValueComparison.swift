import ReachdDBus
import Glibc

/// Whether two values are the same as D-Bus sees them: doubles by bit
/// pattern (so NaN equals itself), descriptors by the file they refer to.
func isIdentical(_ lhs: DBusValue, _ rhs: DBusValue) -> Bool {
    switch (lhs, rhs) {
    case (.double(let a), .double(let b)):
        return a.bitPattern == b.bitPattern
    case (.unixFD(let a), .unixFD(let b)):
        var first = stat(), second = stat()
        guard fstat(a.rawValue, &first) == 0, fstat(b.rawValue, &second) == 0 else { return false }
        return first.st_ino == second.st_ino && first.st_dev == second.st_dev
    case (.array(let typeA, let itemsA), .array(let typeB, let itemsB)):
        return typeA == typeB && itemsA.count == itemsB.count && zip(itemsA, itemsB).allSatisfy(isIdentical)
    case (.dictionary(let keyA, let valueA, let entriesA), .dictionary(let keyB, let valueB, let entriesB)):
        return keyA == keyB && valueA == valueB && entriesA.count == entriesB.count
            && zip(entriesA, entriesB).allSatisfy { isIdentical($0.key, $1.key) && isIdentical($0.value, $1.value) }
    case (.structure(let a), .structure(let b)):
        return a.count == b.count && zip(a, b).allSatisfy(isIdentical)
    case (.variant(let a), .variant(let b)):
        return isIdentical(a, b)
    default:
        return lhs == rhs
    }
}
