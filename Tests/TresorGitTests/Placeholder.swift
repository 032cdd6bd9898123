import XCTest
final class PlaceholderTresorGitTests: XCTestCase { func testBuilds() {} }
