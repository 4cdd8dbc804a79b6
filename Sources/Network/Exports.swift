// Apple's Network module brings Dispatch with it: code that writes `import Network` alone uses
// `DispatchQueue` for `start(queue:)`. The same here.
@_exported import Dispatch
// And Darwin's C library, which Apple's Network re-exports: `if_nametoindex`, `AF_INET` and the
// socket types compile in a file that imports Network alone.
@_exported import Glibc
