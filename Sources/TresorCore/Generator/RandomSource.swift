// Where the generator gets its randomness: a protocol, and libsodium as the system source.

/// A source of uniformly distributed integers; the generator uses nothing else.
///
/// Tests inject scripted or seeded sources; production uses `SystemRandomSource`.
public protocol RandomSource {
    /// A uniformly random integer in `0..<upperBound`, without modulo bias. `upperBound` is at least 1.
    mutating func uniform(_ upperBound: UInt32) -> UInt32
}

/// The operating system's CSPRNG through libsodium's `randombytes_uniform`.
public struct SystemRandomSource: RandomSource {
    /// A source backed by libsodium; it has no state of its own.
    public init() {}

    /// `Sodium.randomUniform`, i.e. `randombytes_uniform` (rejection sampling, no modulo bias).
    public mutating func uniform(_ upperBound: UInt32) -> UInt32 {
        Sodium.randomUniform(upperBound)
    }
}

extension RandomSource {
    /// A uniformly random integer in `0..<upperBound` for a positive `Int` bound below 2^32.
    mutating func index(_ upperBound: Int) -> Int {
        precondition(upperBound > 0 && upperBound <= Int(UInt32.max), "random bound out of range")
        return Int(uniform(UInt32(upperBound)))
    }

    /// 32 uniformly random bits, from two 16-bit draws: `uniform` takes a `UInt32` bound, so one call
    /// can yield at most 2^32 - 1 distinct values.
    mutating func word32() -> UInt32 {
        (uniform(1 << 16) << 16) | uniform(1 << 16)
    }
}
