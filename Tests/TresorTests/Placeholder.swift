import XCTest
final class PlaceholderTresorTests: XCTestCase { func testBuilds() {} }
