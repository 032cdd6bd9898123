// A minimal arbitrary-size unsigned integer, just enough to count and sample every-class passwords exactly.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A non-negative integer of any size, little-endian 32-bit limbs without trailing zero limbs.
///
/// Only what `EveryClassSampler` needs: add, subtract, multiply, exact division by a small number,
/// comparison, a base-2 logarithm and uniform sampling below a bound. Counts reach 190^1024 ≈ 2^7750.
struct BigUInt: Equatable, Comparable, CustomStringConvertible {
    private(set) var limbs: [UInt32]

    init(_ value: UInt32 = 0) { limbs = value == 0 ? [] : [value] }

    private init(limbs: [UInt32]) {
        self.limbs = limbs
        normalize()
    }

    var isZero: Bool { limbs.isEmpty }

    private mutating func normalize() {
        while let last = limbs.last, last == 0 { limbs.removeLast() }
    }

    static func + (a: BigUInt, b: BigUInt) -> BigUInt {
        let (long, short) = a.limbs.count >= b.limbs.count ? (a.limbs, b.limbs) : (b.limbs, a.limbs)
        var out = [UInt32](repeating: 0, count: long.count + 1)
        var carry: UInt64 = 0
        for i in 0..<long.count {
            let sum = UInt64(long[i]) + (i < short.count ? UInt64(short[i]) : 0) + carry
            out[i] = UInt32(truncatingIfNeeded: sum)
            carry = sum >> 32
        }
        out[long.count] = UInt32(carry)
        return BigUInt(limbs: out)
    }

    /// `a - b`; `a` must not be smaller than `b`.
    static func - (a: BigUInt, b: BigUInt) -> BigUInt {
        precondition(a >= b, "BigUInt subtraction would go negative")
        var out = a.limbs
        var borrow: Int64 = 0
        for i in 0..<out.count {
            var diff = Int64(out[i]) - (i < b.limbs.count ? Int64(b.limbs[i]) : 0) - borrow
            borrow = diff < 0 ? 1 : 0
            if diff < 0 { diff += 1 << 32 }
            out[i] = UInt32(diff)
        }
        return BigUInt(limbs: out)
    }

    static func * (a: BigUInt, b: BigUInt) -> BigUInt {
        if a.isZero || b.isZero { return BigUInt() }
        var out = [UInt32](repeating: 0, count: a.limbs.count + b.limbs.count)
        for i in 0..<a.limbs.count {
            var carry: UInt64 = 0
            let ai = UInt64(a.limbs[i])
            for j in 0..<b.limbs.count {
                let t = ai * UInt64(b.limbs[j]) + UInt64(out[i + j]) + carry
                out[i + j] = UInt32(truncatingIfNeeded: t)
                carry = t >> 32
            }
            out[i + b.limbs.count] = UInt32(carry)
        }
        return BigUInt(limbs: out)
    }

    /// `base` raised to `exponent` by repeated squaring (0^0 = 1).
    static func power(_ base: UInt32, _ exponent: Int) -> BigUInt {
        var result = BigUInt(1)
        var square = BigUInt(base)
        var e = exponent
        while e > 0 {
            if e & 1 == 1 { result = result * square }
            e >>= 1
            if e > 0 { square = square * square }
        }
        return result
    }

    /// `self / divisor`, which must divide `self` exactly.
    func dividedExactly(by divisor: UInt32) -> BigUInt {
        precondition(divisor > 0, "BigUInt division by zero")
        var out = limbs
        var remainder: UInt64 = 0
        for i in stride(from: out.count - 1, through: 0, by: -1) {
            let current = (remainder << 32) | UInt64(out[i])
            out[i] = UInt32(current / UInt64(divisor))
            remainder = current % UInt64(divisor)
        }
        precondition(remainder == 0, "BigUInt division was not exact")
        return BigUInt(limbs: out)
    }

    static func < (a: BigUInt, b: BigUInt) -> Bool {
        if a.limbs.count != b.limbs.count { return a.limbs.count < b.limbs.count }
        for i in stride(from: a.limbs.count - 1, through: 0, by: -1) where a.limbs[i] != b.limbs[i] {
            return a.limbs[i] < b.limbs[i]
        }
        return false
    }

    /// log2(self) to double precision from the top 64 bits; -infinity for zero.
    var log2Value: Double {
        guard let top = limbs.last else { return -.infinity }
        let next = limbs.count >= 2 ? Double(limbs[limbs.count - 2]) : 0
        let mantissa = Double(top) * 4_294_967_296 + next
        let shift = limbs.count >= 2 ? limbs.count - 2 : -1
        return log2(mantissa) + Double(32 * shift)
    }

    /// A uniformly random integer in `0..<bound` (`bound` > 0). One limb: a single `uniform` draw.
    /// More: a top limb in 0...top and random lower limbs, rejected when not below `bound`; each try
    /// then succeeds with probability above 1/2.
    static func random<R: RandomSource>(below bound: BigUInt, using rng: inout R) -> BigUInt {
        precondition(!bound.isZero, "BigUInt.random needs a positive bound")
        if bound.limbs.count == 1 { return BigUInt(rng.uniform(bound.limbs[0])) }   // a one-limb bound is < 2^32
        let top = bound.limbs[bound.limbs.count - 1]
        while true {
            var limbs = (0..<(bound.limbs.count - 1)).map { _ in rng.word32() }
            limbs.append(top == .max ? rng.word32() : rng.uniform(top + 1))
            let candidate = BigUInt(limbs: limbs)
            if candidate < bound { return candidate }
        }
    }

    /// Decimal digits, for tests and debugging.
    var description: String {
        var digits: [Character] = []
        var rest = self
        while !rest.isZero {
            var remainder: UInt64 = 0
            var out = rest.limbs
            for i in stride(from: out.count - 1, through: 0, by: -1) {
                let current = (remainder << 32) | UInt64(out[i])
                out[i] = UInt32(current / 10)
                remainder = current % 10
            }
            digits.append(Character(String(remainder)))
            rest = BigUInt(limbs: out)
        }
        return digits.isEmpty ? "0" : String(digits.reversed())
    }
}
