import Foundation
import Planner
import Topology
import WireProtocol

/// Writes plans as `beaconfleet plan` prints them, appending UTF-8 to one buffer. Text: each
/// region's fixed text is made once, on its first use, and numbers are formatted by hand, so that
/// a query costs its plan rather than its printing (`plan --stdin` on a 100,000-region venue spent
/// most of each query in `String(format:)`). JSON: one ``PlanAnswer`` a line, through `Codable`.
struct PlanPrinter {
    let venue: Topology
    /// The `--monitored` ids in order, when given: the diff is printed too.
    let monitored: [String]?
    /// Per region, once used: the end of its text line (`  ID  IDENTITY` and a newline).
    private var textTails: [[UInt8]?]

    init(venue: Topology, monitored: [String]?) {
        self.venue = venue
        self.monitored = monitored
        textTails = Array(repeating: nil, count: venue.regions.count)
    }

    /// Appends `plan` for `query` as text: a heading line, then one line per region in slot order.
    mutating func text(_ plan: RegionPlan, query: String, location: GraphLocation, to out: inout [UInt8]) {
        out.append(contentsOf: query.utf8)
        out.append(contentsOf: ": at ".utf8)
        Self.appendFixed(location.x, to: &out)
        out.append(UInt8(ascii: ","))
        Self.appendFixed(location.y, to: &out)
        out.append(UInt8(ascii: ","))
        out.append(contentsOf: location.level.utf8)
        if location.offset > 0 {
            out.append(contentsOf: " (snapped ".utf8)
            Self.appendFixed(location.offset, to: &out)
            out.append(contentsOf: " m)".utf8)
        }
        out.append(contentsOf: "; ".utf8)
        Self.appendInteger(UInt64(plan.regions.count), to: &out)
        out.append(contentsOf: " of ".utf8)
        Self.appendInteger(UInt64(plan.budget), to: &out)
        out.append(contentsOf: " slots; valid for ".utf8)
        if plan.validFor.isFinite {
            Self.appendFixed(plan.validFor, to: &out)
            out.append(contentsOf: " m\n".utf8)
        } else {
            out.append(contentsOf: "anywhere\n".utf8)
        }
        for (number, planned) in plan.regions.enumerated() {
            Self.appendInteger(UInt64(number + 1), width: 4, to: &out)
            out.append(contentsOf: "  ".utf8)
            let slot = planned.slot.rawValue.utf8
            out.append(contentsOf: slot)
            for _ in slot.count..<max(8, slot.count) { out.append(UInt8(ascii: " ")) }
            out.append(UInt8(ascii: " "))
            if let distance = planned.distance {
                Self.appendFixed(distance, width: 8, to: &out)
                out.append(contentsOf: " m".utf8)
            } else {
                out.append(contentsOf: "       -  ".utf8)
            }
            out.append(contentsOf: textTail(planned.region))
        }
        guard monitored != nil else { return }
        out.append(contentsOf: "  add:    ".utf8)
        out.append(contentsOf: plan.added.map(\.id).joined(separator: " ").utf8)
        out.append(contentsOf: "\n  remove: ".utf8)
        out.append(contentsOf: removedIDs(plan).joined(separator: " ").utf8)
        out.append(UInt8(ascii: "\n"))
    }

    /// Appends `plan` for `query` as one JSON object and a newline.
    mutating func json(_ plan: RegionPlan, query: String, location: GraphLocation, to out: inout [UInt8]) {
        let answer = PlanAnswer(
            query: query, budget: plan.budget,
            position: location,
            validFor: plan.validFor.isFinite ? plan.validFor : nil,
            regions: plan.regions.map { planned in
                let identity = venue.regions[planned.region].identity
                return .init(
                    id: planned.id, slot: planned.slot.rawValue, distance: planned.distance, uuid: identity.uuidString,
                    major: identity.major, minor: identity.minor)
            },
            add: monitored == nil ? nil : plan.added.map(\.id), remove: monitored == nil ? nil : removedIDs(plan))
        out.append(contentsOf: PlanCommand.jsonLine(answer).utf8)
    }

    /// The `--monitored` ids the plan removes, in their order, each once: those it removed and
    /// those the venue does not know.
    func removedIDs(_ plan: RegionPlan) -> [String] {
        let removed = Set(plan.removed)
        var seen = Set<String>()
        return (monitored ?? []).filter { id in
            venue.regionIndex(id: id).map { removed.contains($0) } ?? true ? seen.insert(id).inserted : false
        }
    }

    private mutating func textTail(_ region: Int) -> [UInt8] {
        if let tail = textTails[region] { return tail }
        let tail = Array("  \(venue.regions[region].id)  \(venue.regions[region].identity)\n".utf8)
        textTails[region] = tail
        return tail
    }

    /// Appends `value` in decimal, right-aligned in `width` characters (`%*d`).
    static func appendInteger(_ value: UInt64, width: Int = 0, to out: inout [UInt8]) {
        let digits = digitCount(value)
        for _ in digits..<max(width, digits) { out.append(UInt8(ascii: " ")) }
        let end = out.count + digits
        out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
        var rest = value
        for i in stride(from: end - 1, through: end - digits, by: -1) {
            out[i] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
    }

    /// The decimal digits of `value` (1 for 0).
    static func digitCount(_ value: UInt64) -> Int {
        var digits = 1
        var rest = value / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        return digits
    }

    /// Appends `value` with two decimals, right-aligned in `width` characters: what
    /// `String(format: "%*.2f", width, value)` prints, digit for digit (the exact binary value
    /// rounded to the nearest hundredth, a tie to the even one).
    static func appendFixed(_ value: Double, width: Int = 0, to out: inout [UInt8]) {
        guard let hundredths = hundredths(value) else {
            out.append(contentsOf: String(format: "%*.2f", width, value).utf8)
            return
        }
        let negative = value.sign == .minus
        let length = (negative ? 1 : 0) + digitCount(hundredths / 100) + 3
        for _ in length..<max(width, length) { out.append(UInt8(ascii: " ")) }
        if negative { out.append(UInt8(ascii: "-")) }
        appendInteger(hundredths / 100, to: &out)
        let fraction = UInt8(hundredths % 100)
        out.append(UInt8(ascii: "."))
        out.append(UInt8(ascii: "0") + fraction / 10)
        out.append(UInt8(ascii: "0") + fraction % 10)
    }

    /// |`value`| × 100 rounded as `printf`'s `%.2f` rounds it, or `nil` when it is not a finite number
    /// well within exact integers (printed by `String(format:)` then).
    static func hundredths(_ value: Double) -> UInt64? {
        let magnitude = value.magnitude
        guard magnitude < 1e13 else { return nil }
        // The product is rounded; its exact value decides, against n ± ½ (both exact at this size).
        var n = (magnitude * 100).rounded(.toNearestOrEven)
        let belowLow = (-(n - 0.5)).addingProduct(magnitude, 100)
        let aboveHigh = (-(n + 0.5)).addingProduct(magnitude, 100)
        if belowLow < 0 {
            n -= 1
        } else if aboveHigh > 0 {
            n += 1
        } else if belowLow == 0, n.truncatingRemainder(dividingBy: 2) != 0 {
            n -= 1  // exactly halfway between n - 1 and n: the even one
        } else if aboveHigh == 0, n.truncatingRemainder(dividingBy: 2) != 0 {
            n += 1  // exactly halfway between n and n + 1: the even one
        }
        return UInt64(n)
    }
}
