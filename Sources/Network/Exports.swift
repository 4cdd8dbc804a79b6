// Apple's Network module brings Dispatch with it: code that writes `import Network` alone uses
// `DispatchQueue` for `start(queue:)`. The same here.
@_exported import Dispatch
