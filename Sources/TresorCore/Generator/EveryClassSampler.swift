// Counting and uniformly sampling passwords that contain at least one character of every class.

import Foundation

/// Exact counting and sampling for every-class policies over disjoint classes. Spec/GENERATOR.md §4.
///
/// With class sizes c_1…c_k (disjoint, N = Σ c_i) and length L, inclusion–exclusion gives the number
/// of strings that miss no class: count(L, K) = Σ_{T ⊆ K} (−1)^|T| (N − Σ_{i∈T} c_i)^L.
/// The sampler picks characters left to right; at each position it chooses the class i with
/// probability c_i · count(rest, uncovered − {i}) / count(rest + 1, uncovered), computed with exact
/// big integers, so every allowed string is equally likely and the number of draws is bounded
/// (no rejection loop over whole passwords that could run for ever).
struct EveryClassSampler {
    let sizes: [Int]
    let length: Int
    private var total: Int { sizes.reduce(0, +) }

    init(sizes: [Int], length: Int) {
        precondition(!sizes.isEmpty && sizes.count <= 8 && sizes.allSatisfy { $0 > 0 })
        self.sizes = sizes
        self.length = length
    }

    private func missingSize(_ mask: Int) -> Int {
        sizes.indices.reduce(0) { mask & (1 << $1) != 0 ? $0 + sizes[$1] : $0 }
    }

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

    /// One uniformly drawn string, as class indices and indices within the class.
    func sample<R: RandomSource>(using rng: inout R) -> [(classIndex: Int, charIndex: Int)] {
        let k = sizes.count
        let full = (1 << k) - 1
        var uncovered = full
        // powers[mask] = (N − s_mask)^(remaining − 1) for the masks inside `uncovered`.
        var remaining = length
        var powers = (0...full).map { BigUInt.power(UInt32(total - missingSize($0)), remaining - 1) }
        var out: [(Int, Int)] = []
        out.reserveCapacity(length)

        // Strings of length remaining − 1 that contain every class in `need`.
        func completions(_ need: Int) -> BigUInt {
            var positive = BigUInt(), negative = BigUInt()
            var sub = need
            while true {   // every subset of `need`
                if sub.nonzeroBitCount % 2 == 0 { positive = positive + powers[sub] } else { negative = negative + powers[sub] }
                if sub == 0 { break }
                sub = (sub - 1) & need
            }
            return positive - negative
        }

        while remaining > 0 && uncovered != 0 {
            var weights: [BigUInt] = []
            var sum = BigUInt()
            for i in 0..<k {
                let w = completions(uncovered & ~(1 << i)) * BigUInt(UInt32(sizes[i]))
                weights.append(w)
                sum = sum + w
            }
            var x = BigUInt.random(below: sum, using: &rng)
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
                powers[mask] = base == 0 ? BigUInt(remaining == 1 ? 1 : 0) : powers[mask].dividedExactly(by: UInt32(base))
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
