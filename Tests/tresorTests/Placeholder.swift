import XCTest
final class PlaceholdertresorTests: XCTestCase { func testBuilds() {} }
