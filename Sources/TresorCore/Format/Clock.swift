// Dots and clocks: which change wrote a value, and what a state has seen (Spec/FORMAT.md §11.3).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The change that wrote something: a replica id and that replica's event number (Spec/FORMAT.md §11.3).
/// Ordered by the replica id's bytes, then the number.
package struct Dot: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// 16 lowercase hex digits.
    package var replica: String
    package var counter: UInt64

    package init(replica: String, counter: UInt64) { self.replica = replica; self.counter = counter }

    package static func < (a: Dot, b: Dot) -> Bool {
        let c = MergeOrder.compare(a.replica, b.replica)
        return c != 0 ? c < 0 : a.counter < b.counter
    }

    package var description: String { replica + ":" + String(counter) }

    /// A dot that stands for the change a transaction has not numbered yet (an import planned before it): every value
    /// carrying it is given the transaction's dot by `Entry.redotted(to:)`.
    package static let placeholder = Dot(replica: "0000000000000000", counter: 1)

    /// Whether `s` is a replica id: 16 lowercase hex digits.
    package static func isReplicaID(_ s: String) -> Bool {
        s.utf8.count == 16 && s.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// A new random replica id.
    package static func newReplicaID() -> String {
        Hex.lower(Sodium.randomBytes(8))
    }

    var json: JSONValue { .array([.string(replica), .integer(counter)]) }

    /// Parses `["<replica id>", <number ≥ 1>]`. - Throws: `CoreError.malformed`.
    init(json: JSONValue?, context: CoreError.FilePart) throws {
        guard let a = json?.arrayValue, a.count == 2, let r = a[0].stringValue, Dot.isReplicaID(r),
              let n = a[1].uint64Value, n >= 1 else {
            throw CoreError.malformed(.member(context, name: "dot", expected: .dot))
        }
        self.init(replica: r, counter: n)
    }
}

/// A version vector: for each replica, the number of its last event included (Spec/FORMAT.md §11.3).
public struct Clock: Equatable, Sendable {
    /// Readers refuse clocks with more members (Spec/FORMAT.md §11.3).
    public static let maxReplicas = 4096
    public private(set) var counters: [String: UInt64]

    public init(_ counters: [String: UInt64] = [:]) { self.counters = counters.filter { $0.value > 0 } }

    public static let empty = Clock()

    public subscript(replica: String) -> UInt64 { counters[replica] ?? 0 }

    /// Whether this clock includes the event `dot`.
    package func covers(_ dot: Dot) -> Bool { self[dot.replica] >= dot.counter }

    /// Whether every event of `self` is in `other` (self ≤ other).
    public func isAtMost(_ other: Clock) -> Bool { counters.allSatisfy { other[$0.key] >= $0.value } }

    /// Every event of either.
    public func joined(_ other: Clock) -> Clock {
        var out = counters
        for (r, n) in other.counters where out[r, default: 0] < n { out[r] = n }
        return Clock(out)
    }

    /// Sets replica `dot.replica` to at least `dot.counter`.
    package mutating func advance(to dot: Dot) {
        if counters[dot.replica, default: 0] < dot.counter { counters[dot.replica] = dot.counter }
    }

    /// How `self` stands to `other` (Spec/AUTH.md §2).
    package func relation(to other: Clock) -> ClockRelation {
        let le = isAtMost(other), ge = other.isAtMost(self)
        switch (le, ge) {
        case (true, true): return .equal
        case (false, true): return .newer
        case (true, false): return .older
        case (false, false): return .concurrent
        }
    }

    /// The clock as a JSON object (Spec/FORMAT.md §11.3).
    public var json: JSONValue { .object(counters.mapValues { .integer($0) }) }

    /// Parses a clock object. - Throws: `CoreError.malformed`.
    public init(json: JSONValue?, context: CoreError.FilePart) throws {
        guard let o = json?.objectValue else { throw CoreError.malformed(.member(context, name: "clock", expected: .clock)) }
        guard o.count <= Clock.maxReplicas else { throw CoreError.malformed(.tooMany(.clockMember, limit: Clock.maxReplicas)) }
        var c: [String: UInt64] = [:]
        for (r, v) in o {
            guard Dot.isReplicaID(r), let n = v.uint64Value, n >= 1 else {
                throw CoreError.malformed(.member(context, name: "clock", expected: .clock))
            }
            c[r] = n
        }
        self.init(c)
    }
}

/// How one clock stands to another.
package enum ClockRelation: String, Equatable, Sendable {
    /// The same events.
    case equal
    /// Every event of the other and more.
    case newer
    /// A subset of the other's events.
    case older
    /// Neither includes the other.
    case concurrent
}

/// One change of one replica (Spec/FORMAT.md §11.3): when, by which device (the `origin` people read), and the dot
/// every value it writes gets.
public struct Change: Sendable {
    public var time: Timestamp
    public var origin: String
    package var dot: Dot
    package init(time: Timestamp, origin: String, dot: Dot) { self.time = time; self.origin = origin; self.dot = dot }
}
