import XCTest
final class PlaceholderTresorCoreTests: XCTestCase { func testBuilds() {} }
