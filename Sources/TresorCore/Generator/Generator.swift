// Draws passwords and passphrases uniformly from what a policy allows, and reports their entropy.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A generated password or passphrase with the entropy of the policy that produced it.
public struct GeneratedSecret: Sendable {
    /// The password or passphrase, built in zeroing memory (never a `String` on the way).
    public let secret: SecretText
    /// A `String` copy of `secret`, which cannot be wiped: for showing it (the new-entry form, `generate`'s
    /// JSON), never on the way into the vault.
    public var value: String { secret.makeString() }
    /// log2 of the number of equally likely outputs of the policy. Spec/GENERATOR.md §4.
    public let entropyBits: Double
}

/// Password and passphrase generation. Spec/GENERATOR.md §4.
public enum Generator {
    /// Draws one secret uniformly from all strings the policy allows, using only `rng.uniform`.
    /// - Throws: the policy's `GeneratorError` when it is impossible (empty character set, length
    ///   out of range, every-class with too short a length or an emptied class, bad word count), or for
    ///   a passphrase `GeneratorError.dataFileMissing`/`.dataFileUnreadable`/`.dataFileDamaged` when the
    ///   word list cannot be read.
    public static func generate<R: RandomSource>(_ policy: GeneratorPolicy, using rng: inout R) throws -> GeneratedSecret {
        switch policy {
        case .characters(let p):
            let resolved = try p.resolve()
            var scalars: [Unicode.Scalar]
            if resolved.everyClass {
                let classes = resolved.classes.map(\.chars)
                let sampler = EveryClassSampler(sizes: classes.map(\.count), length: resolved.length)
                scalars = sampler.sample(using: &rng).map { classes[$0.classIndex][$0.charIndex] }
            } else {
                let alphabet = resolved.alphabet
                scalars = (0..<resolved.length).map { _ in alphabet[rng.index(alphabet.count)] }
            }
            var out = SecretByteBuilder(capacity: scalars.count * 4)
            for scalar in scalars { out.append(contentsOf: UTF8.encode(scalar)!) }
            for i in scalars.indices { scalars[i] = "\0" }  // the only other copy, wiped
            return GeneratedSecret(secret: SecretText(trusted: out.finish()), entropyBits: entropyBits(of: resolved))
        case .words(let p):
            try p.validate()
            let list = try EFFWordList.words()
            // The same draws in the same order as ever (Spec/GENERATOR.md §4.3: the words, then which word gets
            // the number, then the digit); the words are copied from the list into zeroing memory.
            var picks = (0..<p.words).map { _ in rng.index(list.count) }
            var numbered = -1, digit = 0
            if p.withNumber {
                numbered = rng.index(picks.count)
                digit = rng.index(10)
            }
            var out = SecretByteBuilder(capacity: 128)
            for (k, pick) in picks.enumerated() {
                if k > 0 { out.append(p.separator) }
                let word = list[pick]
                if p.capitalize, let first = word.first {
                    out.append(String(first).uppercased())
                    out.append(contentsOf: word.utf8.dropFirst(String(first).utf8.count))
                } else {
                    out.append(word)
                }
                if k == numbered { out.append(UInt8(ascii: "0") + UInt8(digit)) }
            }
            for i in picks.indices { picks[i] = 0 }
            return GeneratedSecret(secret: SecretText(trusted: out.finish()), entropyBits: try entropyBits(of: policy))
        }
    }

    /// log2 of the number of equally likely outputs:
    /// - characters: L·log2 N, or with every-class log2 of the inclusion–exclusion count;
    /// - words: W·log2 7776, plus log2(10·W) with a number (which word, which digit); capitals add nothing.
    /// - Throws: the same errors as `generate` for an impossible policy.
    public static func entropyBits(of policy: GeneratorPolicy) throws -> Double {
        switch policy {
        case .characters(let p):
            return entropyBits(of: try p.resolve())
        case .words(let p):
            try p.validate()
            let words = Double(p.words) * log2(Double(EFFWordList.count))
            return p.withNumber ? words + log2(10 * Double(p.words)) : words
        }
    }

    private static func entropyBits(of resolved: ResolvedAlphabet) -> Double {
        if resolved.everyClass {
            return EveryClassSampler(sizes: resolved.classes.map(\.chars.count), length: resolved.length).log2Count()
        }
        return Double(resolved.length) * log2(Double(resolved.alphabet.count))
    }
}
