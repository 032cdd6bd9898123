// The system calls of FileSystem, the project's one funnel: whole writes, reads to the end, and each failure thrown with
// its errno (never a return code left unread).
import Foundation
@testable import TresorCore
import XCTest

final class FileSystemCallTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "fs-calls-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func testAWriteLargerThanAPipeHoldsArrivesWholeAndInOrder() throws {
        let (readEnd, writeEnd) = try FileSystem.pipe()
        let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        // The reader runs beside the writer: a pipe holds 64 KiB, so the write is many partial writes.
        let reader = Thread {
            var got = [UInt8](repeating: 0, count: bytes.count + 1)
            let n = (try? got.withUnsafeMutableBytes { try FileSystem.readFully(readEnd, into: $0, path: "pipe") }) ?? -1
            XCTAssertEqual(n, bytes.count)
            XCTAssertEqual(Array(got[..<bytes.count]), bytes)
            FileSystem.close(readEnd)
        }
        reader.start()
        try bytes.withUnsafeBytes { try FileSystem.writeAll(writeEnd, $0, path: "pipe") }
        FileSystem.close(writeEnd)
        while !reader.isFinished { usleep(1000) }
    }

    func testAWriteToAPipeNobodyReadsIsAFailureWithItsErrno() throws {
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        let (readEnd, writeEnd) = try FileSystem.pipe()
        FileSystem.close(readEnd)
        defer { FileSystem.close(writeEnd) }
        XCTAssertThrowsError(try [UInt8](repeating: 1, count: 10).withUnsafeBytes { try FileSystem.writeAll(writeEnd, $0, path: "the reader") }) { error in
            XCTAssertEqual(error as? FileSystem.Failure, FileSystem.Failure(.write, "the reader", errno: EPIPE))
        }
    }

    func testReadIfPresentTellsMissingFromUnreadable() throws {
        XCTAssertNil(try FileSystem.readIfPresent(dir + "/missing", limit: 10))
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/file"))
        XCTAssertNil(try FileSystem.readIfPresent(dir + "/file/below", limit: 10), "a file where a folder was expected is ENOTDIR: missing")
        XCTAssertEqual(try FileSystem.readIfPresent(dir + "/file", limit: 10), Array("x".utf8))
        try FileManager.default.createDirectory(atPath: dir + "/folder", withIntermediateDirectories: true)
        XCTAssertThrowsError(try FileSystem.readIfPresent(dir + "/folder", limit: 10))
        XCTAssertThrowsError(try FileSystem.read(dir + "/missing", limit: 10)) { error in
            XCTAssertEqual(error as? CoreError, .io(.failed(.read, path: dir + "/missing", errno: ENOENT)))
        }
    }

    func testRemovalAndFoldersSayWhatFailed() throws {
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/file"))
        XCTAssertTrue(try FileSystem.removeIfPresent(dir + "/file"))
        XCTAssertFalse(try FileSystem.removeIfPresent(dir + "/file"))
        XCTAssertThrowsError(try FileSystem.remove(dir + "/file")) { error in
            XCTAssertEqual(error as? FileSystem.Failure, FileSystem.Failure(.unlink, dir + "/file", errno: ENOENT))
        }
        XCTAssertThrowsError(try FileSystem.removeIfPresent(dir)) { error in
            XCTAssertEqual((error as? FileSystem.Failure)?.errno, EISDIR)
        }
        try FileSystem.makeDirectory(dir + "/new")
        XCTAssertEqual(FileSystem.mode(dir + "/new"), 0o700)
        XCTAssertThrowsError(try FileSystem.makeDirectory(dir + "/new")) { error in
            XCTAssertEqual(error as? FileSystem.Failure, FileSystem.Failure(.mkdir, dir + "/new", errno: EEXIST))
        }
        try FileSystem.makeDirectory(dir + "/new", existingIsFine: true)
        XCTAssertNil(try FileSystem.status(dir + "/gone"))
        XCTAssertEqual(try FileSystem.status(dir + "/new").map { $0.st_mode & S_IFMT }, S_IFDIR)
        try FileSystem.setMode(dir + "/new", 0o750)
        XCTAssertEqual(FileSystem.mode(dir + "/new"), 0o750)
    }

    func testTheLockIsExclusiveAcrossDescriptors() throws {
        let path = dir + "/lock"
        let a = try FileSystem.open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode: 0o600)
        let b = try FileSystem.open(path, O_RDWR | O_CLOEXEC)
        defer { FileSystem.close(a); FileSystem.close(b) }
        XCTAssertTrue(try FileSystem.tryLock(a, path: path))
        XCTAssertFalse(try FileSystem.tryLock(b, path: path))
        try FileSystem.rewrite(a, with: Array("1234\n".utf8), path: path)
        try FileSystem.rewrite(a, with: Array("5\n".utf8), path: path)
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = try buffer.withUnsafeMutableBytes { try FileSystem.readFromStart(b, into: $0, path: path) }
        XCTAssertEqual(Array(buffer[..<n]), Array("5\n".utf8), "a rewrite leaves nothing of the longer text before it")
        FileSystem.unlock(a)
        XCTAssertTrue(try FileSystem.tryLock(b, path: path))
    }

    /// Disk lanes run at once, more of them than cores: each lane waits until all have started, which lanes run one
    /// after another (or only as many at a time as there are cores) would never see.
    func testDiskLanesRunEveryLaneOnceAndAllAtOnce() throws {
        let lanes = 3 * ProcessInfo.processInfo.activeProcessorCount + 2
        let lock = ThreadLock()
        var started = 0
        var ran: [Int] = []
        var threads = Set<UInt>()
        var allMet = true
        DiskLanes.run(lanes) { lane in
            lock.lock(); started += 1; ran.append(lane); threads.insert(UInt(bitPattern: Int(bitPattern: pthread_self()))); lock.unlock()
            let deadline = Date().addingTimeInterval(10)
            while true {
                lock.lock(); let all = started == lanes; lock.unlock()
                if all { break }
                if Date() > deadline { lock.lock(); allMet = false; lock.unlock(); break }
                usleep(1000)
            }
        }
        XCTAssertTrue(allMet, "every lane waited for all the others: they run at once")
        XCTAssertEqual(ran.sorted(), Array(0..<lanes))
        XCTAssertEqual(threads.count, lanes, "each lane on its own thread")
    }
}
