// Counting and uniformly sampling passwords that contain at least one character of every class.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Exact counting and sampling for every-class policies over disjoint classes. Spec/GENERATOR.md §4.
///
/// With class sizes c_1…c_k (disjoint, N = Σ c_i) and length L, inclusion–exclusion gives the number
/// of strings that miss no class: count(L, K) = Σ_{T ⊆ K} (−1)^|T| (N − Σ_{i∈T} c_i)^L.
/// The exact sampler picks characters left to right; at each position it chooses the class i with
/// probability c_i · count(rest, uncovered − {i}) / count(rest + 1, uncovered), computed with exact
/// integers, so every allowed string is equally likely and the number of draws is bounded
/// (no rejection loop over whole passwords that could run for ever). Where most strings qualify,
/// plain rejection sampling is used first because it is much cheaper.
struct EveryClassSampler {
    let sizes: [Int]
    let length: Int
    private let total: Int
    /// missing[mask] = the number of alphabet characters in the classes of `mask`.
    private let missing: [Int]

    init(sizes: [Int], length: Int) {
        precondition(!sizes.isEmpty && sizes.count <= 8 && sizes.allSatisfy { $0 > 0 })
        self.sizes = sizes
        self.length = length
        total = sizes.reduce(0, +)
        missing = (0..<(1 << sizes.count)).map { mask in
            sizes.indices.reduce(0) { mask & (1 << $1) != 0 ? $0 + sizes[$1] : $0 }
        }
    }

    private func missingSize(_ mask: Int) -> Int { missing[mask] }

    /// The exact number of allowed strings.
    func exactCount() -> BigUInt {
        var positive = BigUInt(), negative = BigUInt()
        for mask in 0..<(1 << sizes.count) {
            let term = BigUInt.power(UInt32(total - missingSize(mask)), length)
            if mask.nonzeroBitCount % 2 == 0 { positive = positive + term } else { negative = negative + term }
        }
        return positive - negative
    }

    /// log2 of the number of allowed strings: inclusion–exclusion in the log domain,
    /// L·log2 N + log2(1 + Σ_{T≠∅} (−1)^|T| (1 − s_T/N)^L), where each power is exp(L·log1p(−s_T/N))
    /// and never overflows. When the bracket is below 1e-6 the alternating sum loses too many digits,
    /// and the exact big-integer count is used instead.
    func log2Count() -> Double {
        let n = Double(total)
        var bracket = 1.0
        for mask in 1..<(1 << sizes.count) {
            let missing = Double(missingSize(mask))
            let term = missing == n ? 0 : exp(Double(length) * log1p(-missing / n))
            bracket += mask.nonzeroBitCount % 2 == 0 ? term : -term
        }
        if bracket >= 1e-6 { return Double(length) * log2(n) + log2(bracket) }
        return exactCount().log2Value
    }

    /// Whether every intermediate sum fits a `UInt64`: the positive half of an inclusion–exclusion
    /// sum is at most 2^(k−1)·N^L, so N^L·2^k must stay below 2^63.
    var fitsUInt64: Bool { Double(length) * log2(Double(total)) + Double(sizes.count) < 62 }

    /// One uniformly drawn string, as class indices and indices within the class.
    ///
    /// When at least 1/16 of all strings over the alphabet contain every class, plain strings are
    /// drawn and those missing a class rejected (cheap, and uniform on the accepted set); after 64
    /// rejections, or when acceptance is rarer, the exact sampler runs. Either way the result is
    /// uniform, and the work is bounded.
    func sample<R: RandomSource>(using rng: inout R) -> [(classIndex: Int, charIndex: Int)] {
        if acceptance >= 1.0 / 16 {
            for _ in 0..<64 {
                if let candidate = samplePlain(using: &rng) { return candidate }
            }
        }
        return sampleExact(using: &rng)
    }

    /// The share of all N^L strings that contain every class.
    var acceptance: Double { exp2(log2Count() - Double(length) * log2(Double(total))) }

    /// A uniform string over the whole alphabet, or nil when it misses a class.
    func samplePlain<R: RandomSource>(using rng: inout R) -> [(classIndex: Int, charIndex: Int)]? {
        var seen = 0
        let out: [(classIndex: Int, charIndex: Int)] = (0..<length).map { _ in
            var j = rng.index(total), i = 0
            while j >= sizes[i] { j -= sizes[i]; i += 1 }
            seen |= 1 << i
            return (i, j)
        }
        return seen == (1 << sizes.count) - 1 ? out : nil
    }

    /// The exact sampler. Counts that fit use `UInt64`, larger ones `BigUInt`; both consume the
    /// same random draws for the same counts.
    func sampleExact<R: RandomSource>(using rng: inout R) -> [(classIndex: Int, charIndex: Int)] {
        fitsUInt64 ? sampleExact(UInt64.self, using: &rng) : sampleExact(BigUInt.self, using: &rng)
    }

    /// `sampleExact` with the number type chosen by the caller (tests compare the two).
    func sampleExact<N: CountingNumber, R: RandomSource>(_: N.Type, using rng: inout R) -> [(classIndex: Int, charIndex: Int)] {
        let k = sizes.count
        let full = (1 << k) - 1
        var uncovered = full
        // powers[mask] = (N − s_mask)^(remaining − 1) for the masks inside `uncovered`.
        var remaining = length
        var powers = (0...full).map { N.power(UInt32(total - missingSize($0)), remaining - 1) }
        var out: [(Int, Int)] = []
        out.reserveCapacity(length)

        // Strings of length remaining − 1 that contain every class in `need`.
        func completions(_ need: Int) -> N {
            var positive = N.zero, negative = N.zero
            var sub = need
            while true {   // every subset of `need`
                if sub.nonzeroBitCount % 2 == 0 { positive = positive + powers[sub] } else { negative = negative + powers[sub] }
                if sub == 0 { break }
                sub = (sub - 1) & need
            }
            return positive - negative
        }

        while remaining > 0 && uncovered != 0 {
            var weights: [N] = []
            var sum = N.zero
            let stay = completions(uncovered)   // a class already present leaves `uncovered` as it is
            for i in 0..<k {
                let rest = uncovered & (1 << i) != 0 ? completions(uncovered & ~(1 << i)) : stay
                let w = rest * N(small: UInt32(sizes[i]))
                weights.append(w)
                sum = sum + w
            }
            var x = N.random(below: sum, using: &rng)
            var chosen = k - 1
            for i in 0..<k {
                if x < weights[i] { chosen = i; break }
                x = x - weights[i]
            }
            out.append((chosen, rng.index(sizes[chosen])))
            uncovered &= ~(1 << chosen)
            remaining -= 1
            if remaining == 0 { break }
            for mask in 0...full where mask & ~uncovered == 0 {   // only subsets of `uncovered` matter now
                let base = total - missingSize(mask)
                powers[mask] = base == 0 ? N(small: remaining == 1 ? 1 : 0) : powers[mask].dividedExactly(by: UInt32(base))
            }
        }
        // Every class is present: the rest is uniform over the whole alphabet.
        while remaining > 0 {
            var j = rng.index(total)
            var i = 0
            while j >= sizes[i] { j -= sizes[i]; i += 1 }
            out.append((i, j))
            remaining -= 1
        }
        return out
    }
}

/// The arithmetic `EveryClassSampler` needs, so one algorithm serves `UInt64` and `BigUInt`.
protocol CountingNumber: Comparable {
    static var zero: Self { get }
    init(small: UInt32)
    static func + (a: Self, b: Self) -> Self
    static func - (a: Self, b: Self) -> Self
    static func * (a: Self, b: Self) -> Self
    static func power(_ base: UInt32, _ exponent: Int) -> Self
    func dividedExactly(by divisor: UInt32) -> Self
    static func random<R: RandomSource>(below bound: Self, using rng: inout R) -> Self
}

extension BigUInt: CountingNumber {
    static var zero: BigUInt { BigUInt() }
    init(small: UInt32) { self.init(small) }
}

extension UInt64: CountingNumber {
    init(small: UInt32) { self.init(small) }

    /// Overflow traps; `EveryClassSampler.fitsUInt64` keeps every value below 2^63.
    static func power(_ base: UInt32, _ exponent: Int) -> UInt64 {
        (0..<exponent).reduce(1) { acc, _ in acc * UInt64(base) }
    }

    func dividedExactly(by divisor: UInt32) -> UInt64 {
        precondition(self % UInt64(divisor) == 0, "division was not exact")
        return self / UInt64(divisor)
    }

    /// The same draws as `BigUInt.random` for the same bound: one `uniform` below 2^32, else a top
    /// 32-bit limb in 0...top and a random low limb, rejected when not below `bound`.
    static func random<R: RandomSource>(below bound: UInt64, using rng: inout R) -> UInt64 {
        precondition(bound > 0, "random needs a positive bound")
        if bound <= UInt64(UInt32.max) { return UInt64(rng.uniform(UInt32(bound))) }
        let top = UInt32(bound >> 32)
        while true {
            let low = UInt64(rng.word32())
            let high = UInt64(top == .max ? rng.word32() : rng.uniform(top + 1))
            let candidate = high << 32 | low
            if candidate < bound { return candidate }
        }
    }
}
