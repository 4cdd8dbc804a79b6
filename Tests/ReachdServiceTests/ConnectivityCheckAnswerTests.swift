import ReachdCore
@testable import ReachdEngine
import Testing

/// reachd's own connectivity check reads an answer as NetworkManager does (contract 3, §2.2):
/// NetworkManager's header or the expected body is the Internet; a redirect, a 511 or another
/// page is a captive portal; anything else is the Internet not answering.
@Suite("reachd's connectivity check: answers and verdicts")
struct ConnectivityCheckAnswerTests {
    static func answer(_ text: String) -> CheckAnswer? { CheckAnswer(Array(text.utf8)) }

    @Test("verdicts", arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Length: 25\r\n\r\nNetworkManager is online\n", "NetworkManager is online", "full", nil),
        ("HTTP/1.1 200 OK\r\n\r\nOK", "OK", "full", nil),
        ("HTTP/1.1 204 No Content\r\n\r\n", "", "full", nil),
        ("HTTP/1.1 204 No Content\r\nX-NetworkManager-Status: online\r\n\r\n", "NetworkManager is online", "full", nil),
        ("HTTP/1.0 200 OK\r\nx-networkmanager-status:online\r\n\r\nanything", "expected", "full", nil),
        ("HTTP/1.1 302 Found\r\nLocation: http://portal.example/login?x=1\r\n\r\n", "OK", "portal", "http://portal.example/login?x=1"),
        ("HTTP/1.1 307 Temporary Redirect\r\nLocation: /login\r\n\r\n", "OK", "portal", "/login"),
        ("HTTP/1.1 511 Network Authentication Required\r\n\r\n<html>log in</html>", "OK", "portal", nil),
        ("HTTP/1.1 200 OK\r\n\r\n<html>Please log in</html>", "OK", "portal", nil),
        ("HTTP/1.1 200 OK\r\n\r\n", "", "portal", nil),
        ("HTTP/1.1 404 Not Found\r\n\r\nOK", "OK", "limited", nil),
        ("HTTP/1.1 500 Internal Server Error\r\n\r\n", "", "limited", nil),
    ] as [(String, String, String, String?)])
    func verdicts(text: String, response: String, verdict: String, location: String?) throws {
        let answer = try #require(Self.answer(text))
        let (found, foundLocation) = answer.verdict(expecting: response)
        #expect(found.rawValue == verdict)
        #expect(foundLocation == location)
    }

    @Test("no HTTP answer at all, or a header that never ends, is not an answer")
    func notAnswers() {
        #expect(Self.answer("SSH-2.0-OpenSSH_9.6\r\n") == nil)
        #expect(Self.answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n") == nil)
        #expect(Self.answer("hello\r\n\r\n") == nil)
    }

    @Test("the request: GET over HTTP/1.1 with Host, reachd's User-Agent and Connection: close")
    func request() throws {
        let check = try ConnectivityCheckConfiguration(uri: "http://check.example:8080/static/hotspot.txt?a=b#frag",
                                                       userAgent: "reachd/9.9")
        #expect(String(decoding: check.request, as: UTF8.self) == """
            GET /static/hotspot.txt?a=b HTTP/1.1\r\nHost: check.example:8080\r\nUser-Agent: reachd/9.9\r\n\
            Accept: */*\r\nConnection: close\r\n\r\n
            """)
        let bare = try ConnectivityCheckConfiguration(uri: "http://connectivity-check.ubuntu.com")
        #expect(bare.host == "connectivity-check.ubuntu.com")
        #expect(bare.port == 80)
        #expect(bare.target == "/")
        #expect(bare.hostHeader == "connectivity-check.ubuntu.com")
        let literal = try ConnectivityCheckConfiguration(uri: "http://[2001:db8::1]:81/check")
        #expect(literal.host == "2001:db8::1")
        #expect(literal.hostHeader == "[2001:db8::1]:81")
    }

    @Test("a relative Location is made absolute against the check URI")
    func relativeLocations() throws {
        let check = try ConnectivityCheckConfiguration(uri: "http://10.0.0.1:8080/dir/check")
        #expect(check.absolute("http://portal.example/") == "http://portal.example/")
        #expect(check.absolute("/login") == "http://10.0.0.1:8080/login")
        #expect(check.absolute("//portal.example/x") == "http://portal.example/x")
        #expect(check.absolute("login") == "http://10.0.0.1:8080/dir/login")
        #expect(check.absolute("https://portal.example/") == "https://portal.example/")
        #expect(check.absolute("/login?next=http://x/") == "http://10.0.0.1:8080/login?next=http://x/")
        #expect(check.absolute("a+b://x") == "a+b://x")
        #expect(check.absolute("1a://x") == "http://10.0.0.1:8080/dir/1a://x")
    }

    @Test("only http:// with a host is probed", arguments: [
        "https://check.example/", "ftp://check.example/", "http://", "http://user@check.example/",
        "http://check.example:0/", "http://check.example:99999/", "http://[2001:db8::1/",
    ])
    func refusedURIs(uri: String) {
        #expect(throws: ConnectivityCheckConfiguration.InvalidURI.self) { try ConnectivityCheckConfiguration(uri: uri) }
    }

    @Test("an interval or timeout beyond a year (or below zero) is refused, not armed as a timer that traps",
          arguments: [(Duration.seconds(31_536_001), Duration.seconds(20)), (.seconds(Int64.max), .seconds(20)),
                      (.seconds(-1), .seconds(20)), (.seconds(300), .seconds(31_536_001)),
                      (.seconds(300), .seconds(Int64.max) * 2), (.seconds(300), .zero)])
    func durationsOutOfRange(interval: Duration, timeout: Duration) {
        #expect(throws: ConnectivityCheckConfiguration.InvalidURI.self) {
            try ConnectivityCheckConfiguration(uri: "http://check.example/", interval: interval, timeout: timeout)
        }
        #expect(throws: Never.self) {
            try ConnectivityCheckConfiguration(uri: "http://check.example/", interval: .seconds(31_536_000), timeout: .seconds(31_536_000))
        }
    }

    @Test("families combine as NetworkManager ranks them: full, then portal, then limited")
    func familiesCombine() {
        #expect(ConnectivityCheckResult.Verdict.limited.better(.full) == .full)
        #expect(ConnectivityCheckResult.Verdict.portal.better(.limited) == .portal)
        #expect(ConnectivityCheckResult.Verdict.full.better(.portal) == .full)
    }
}

extension ConnectivityCheckAnswerTests {
    @Test("an answer is complete without the server closing once its body is as long as it says")
    func completeAnswers() throws {
        #expect(try #require(Self.answer("HTTP/1.1 204 No Content\r\n\r\n")).isComplete)
        #expect(try #require(Self.answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK")).isComplete)
        #expect(try #require(Self.answer("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nOK")).isComplete == false)
        #expect(try #require(Self.answer("HTTP/1.1 200 OK\r\n\r\nOK")).isComplete == false)
    }
}
