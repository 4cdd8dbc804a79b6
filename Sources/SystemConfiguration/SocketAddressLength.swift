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

// Darwin's memberwise initializers take the length first (`sockaddr_in(sin_len: 16, sin_family: …)`),
// and code written for Apple's systems calls them so. These take it and ignore it, as the setters
// above do; Darwin's `sin_zero` and `sa_data` are `CChar` tuples, and so are these parameters.

extension sockaddr {
    public init(sa_len: UInt8, sa_family: sa_family_t, sa_data: (CChar, CChar, CChar, CChar, CChar, CChar, CChar,
                                                                  CChar, CChar, CChar, CChar, CChar, CChar, CChar)) {
        self.init()
        self.sa_family = sa_family
        self.sa_data = sa_data
    }
}

extension sockaddr_in {
    public init(sin_len: UInt8, sin_family: sa_family_t, sin_port: in_port_t, sin_addr: in_addr,
                sin_zero: (CChar, CChar, CChar, CChar, CChar, CChar, CChar, CChar)) {
        self.init()
        self.sin_family = sin_family
        self.sin_port = sin_port
        self.sin_addr = sin_addr
        // Glibc's sin_zero is unsigned; the bytes are padding either way.
        self.sin_zero = (UInt8(bitPattern: sin_zero.0), UInt8(bitPattern: sin_zero.1), UInt8(bitPattern: sin_zero.2),
                         UInt8(bitPattern: sin_zero.3), UInt8(bitPattern: sin_zero.4), UInt8(bitPattern: sin_zero.5),
                         UInt8(bitPattern: sin_zero.6), UInt8(bitPattern: sin_zero.7))
    }
}

extension sockaddr_in6 {
    public init(sin6_len: UInt8, sin6_family: sa_family_t, sin6_port: in_port_t, sin6_flowinfo: UInt32,
                sin6_addr: in6_addr, sin6_scope_id: UInt32) {
        self.init()
        self.sin6_family = sin6_family
        self.sin6_port = sin6_port
        self.sin6_flowinfo = sin6_flowinfo
        self.sin6_addr = sin6_addr
        self.sin6_scope_id = sin6_scope_id
    }
}
