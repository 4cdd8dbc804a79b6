// antitypical/Result's NoError (what ReactiveSwift used before Swift's Never could be an error).
public enum NoError: Swift.Error {}
