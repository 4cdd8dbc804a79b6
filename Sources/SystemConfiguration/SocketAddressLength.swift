import Glibc

// BSD's socket addresses carry their length (`sa_len`, `sin_len`, `sin6_len`); Linux's do not, and
// the kernel never needs one. Code written for Apple's systems sets it before
// `SCNetworkReachabilityCreateWithAddress`
// (`zeroAddress.sa_len = UInt8(MemoryLayout<sockaddr>.size)`): these let that line compile, read
// the structure's own size, and ignore what is written.

extension sockaddr {
    /// The structure's size (BSD's `sa_len`); setting it changes nothing.
    public var sa_len: UInt8 {
        get { UInt8(MemoryLayout<sockaddr>.size) }
        set {}
    }
}

extension sockaddr_in {
    /// The structure's size (BSD's `sin_len`); setting it changes nothing.
    public var sin_len: UInt8 {
        get { UInt8(MemoryLayout<sockaddr_in>.size) }
        set {}
    }
}

extension sockaddr_in6 {
    /// The structure's size (BSD's `sin6_len`); setting it changes nothing.
    public var sin6_len: UInt8 {
        get { UInt8(MemoryLayout<sockaddr_in6>.size) }
        set {}
    }
}

extension sockaddr_storage {
    /// The structure's size (BSD's `ss_len`); setting it changes nothing.
    public var ss_len: UInt8 {
        get { UInt8(MemoryLayout<sockaddr_storage>.size) }
        set {}
    }
}
