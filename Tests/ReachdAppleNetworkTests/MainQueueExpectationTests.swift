import Network
import XCTest

/// An app's unit test as written for iOS: an expectation fulfilled by a path update handler on
/// the main queue. Here the monitor answers in-process (no reachd shares the tests' namespace).
final class MainQueueExpectationTests: XCTestCase {
    func testPathUpdateHandlerOnTheMainQueueFulfilsAnExpectation() {
        let monitor = NWPathMonitor()
        let satisfied = expectation(description: "a satisfied path, delivered on the main queue")
        satisfied.assertForOverFulfill = false
        monitor.pathUpdateHandler = { path in
            dispatchPrecondition(condition: .onQueue(.main))
            if path.status == .satisfied { satisfied.fulfill() }
        }
        monitor.start(queue: .main)
        XCTAssertEqual(monitor.queue?.label, DispatchQueue.main.label)
        wait(for: [satisfied], timeout: 5)
        XCTAssertEqual(monitor.currentPath.status, .satisfied)
        monitor.cancel()
    }

    func testCancelledMonitorCallsNoHandlerAgain() {
        let monitor = NWPathMonitor()
        monitor.cancel()
        monitor.pathUpdateHandler = { _ in XCTFail("a cancelled monitor delivered a path") }
        monitor.start(queue: .main)
        let quiet = expectation(description: "a second of quiet")
        DispatchQueue.main.asyncAfter(deadline: .now() + 1) { quiet.fulfill() }
        wait(for: [quiet], timeout: 3)
        XCTAssertNil(monitor.queue, "start after cancel does nothing, as on Apple's systems")
    }
}
