// Draws passwords and passphrases uniformly from what a policy allows, and reports their entropy.

import Foundation

/// A generated password or passphrase with the entropy of the policy that produced it.
public struct GeneratedSecret: Sendable {
    /// The password or passphrase.
    public let value: String
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
            let scalars: [Unicode.Scalar]
            if resolved.everyClass {
                let classes = resolved.classes.map(\.chars)
                let sampler = EveryClassSampler(sizes: classes.map(\.count), length: resolved.length)
                scalars = sampler.sample(using: &rng).map { classes[$0.classIndex][$0.charIndex] }
            } else {
                let alphabet = resolved.alphabet
                scalars = (0..<resolved.length).map { _ in alphabet[rng.index(alphabet.count)] }
            }
            return GeneratedSecret(value: String(String.UnicodeScalarView(scalars)), entropyBits: entropyBits(of: resolved))
        case .words(let p):
            try p.validate()
            let list = try EFFWordList.words()
            var words = (0..<p.words).map { _ in list[rng.index(list.count)] }
            if p.capitalize { words = words.map { $0.prefix(1).uppercased() + $0.dropFirst() } }
            if p.withNumber {
                let which = rng.index(words.count)
                words[which] += String(rng.index(10))
            }
            return GeneratedSecret(value: words.joined(separator: p.separator), entropyBits: try entropyBits(of: policy))
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
