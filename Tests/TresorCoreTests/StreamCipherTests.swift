// Known answers for the KeePass primitives: Salsa20/ChaCha20 key streams, SHA-2, and Argon2d/Argon2id (RFC 9106).
@testable import TresorCore
import XCTest

final class StreamCipherTests: XCTestCase {
    func hex(_ b: [UInt8]) -> String { b.map { String(format: "%02x", $0) }.joined() }
    func bytes(_ h: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = h.startIndex
        while i < h.endIndex { let j = h.index(i, offsetBy: 2); out.append(UInt8(h[i..<j], radix: 16)!); i = j }
        return out
    }

    /// Key 00 01 … 1f; the expected streams were computed with PyCryptodome's Salsa20 and ChaCha20.
    func testKeyStreamsMatchAnIndependentImplementation() throws {
        let key = SecretBytes(copying: [UInt8](0..<32))
        let salsa = "2d8626a68e241c92749dc7efa74b6ee4b86f375ea5fef57c0d7c5d431c17dc3cdc87684cf21de0336c440a48569906510c3524e9a11077ce75c23321ce4afcdc09aab4c3d031"
        let chacha = "71697600d3c41324afe44434cbf070329c35514249afdbdaf9cd22e5a71990ef8b7287920f85b9a2bf8b438aabe9a170afe0aa8efca43d84e9de8d96c44cef416488446a0952"
        for (alg, nonce, expected) in [(StreamCipher.Algorithm.salsa20, [UInt8](1...8), salsa), (.chacha20, [UInt8](1...12), chacha)] {
            // Whole, in uneven pieces, and through the bulk path: the stream continues across calls.
            var whole = [UInt8](repeating: 0, count: 70)
            try StreamCipher(alg, key: key, nonce: nonce).apply(&whole)
            XCTAssertEqual(hex(whole), expected)
            let s = try StreamCipher(alg, key: key, nonce: nonce)
            var a = [UInt8](repeating: 0, count: 3), b = [UInt8](repeating: 0, count: 1)
            try s.apply(&a); try s.apply(&b)
            let c = try s.apply(SecretBytes(count: 66)).withBytes { Array($0) }
            XCTAssertEqual(hex(a + b + c), expected)
        }
        XCTAssertThrowsError(try StreamCipher(.salsa20, key: key, nonce: [1, 2, 3]))
        XCTAssertThrowsError(try StreamCipher(.chacha20, key: SecretBytes(count: 16), nonce: [UInt8](1...12)))
    }

    func testSHA2() {
        XCTAssertEqual(hex(SHA2.sha256(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(hex(SHA2.sha512(SecretBytes(utf8: "abc")).withBytes { Array($0) }),
                       "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
    }

    /// RFC 9106 §5.1 and §5.3 test vectors (password 32×01, salt 16×02, secret 8×03, ad 12×04, t=3, m=32 KiB, p=4).
    func testArgon2RFC9106Vectors() throws {
        let password = SecretBytes(copying: [UInt8](repeating: 1, count: 32))
        let salt = [UInt8](repeating: 2, count: 16), secret = [UInt8](repeating: 3, count: 8), ad = [UInt8](repeating: 4, count: 12)
        for (variant, tag) in [(Argon2.Variant.argon2d, "512b391b6f1162975371d30919734294f868e3be3984f3c1a13a4db9fabe4acb"),
                               (.argon2id, "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659")] {
            let out = try Argon2.hash(variant, password: password, salt: salt, iterations: 3, memoryKiB: 32, parallelism: 4,
                                      version: 0x13, secret: secret, associatedData: ad)
            XCTAssertEqual(hex(out.withBytes { Array($0) }), tag)
        }
        XCTAssertThrowsError(try Argon2.hash(.argon2d, password: password, salt: [1], iterations: 1, memoryKiB: 8, parallelism: 1, version: 0x13))
    }
}
