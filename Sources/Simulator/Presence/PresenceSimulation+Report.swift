import Foundation

extension PresenceScore {
    /// `correct  falseChanges/h  p50  p90  (visits)` as the reports print it.
    public var columns: String {
        func seconds(_ value: Double?) -> String {
            guard let value else { return "-" }
            return value.isFinite ? String(format: "%.1fs", value) : "never"
        }
        let correct = correctShare.map { String(format: "%.2f%%", $0 * 100) } ?? "-"
        let flaps = falseChangesPerHour.map { String(format: "%.2f", $0) } ?? "-"
        return [
            correct.leftPadded(8), flaps.leftPadded(9), seconds(detection(percentile: 50)).leftPadded(7),
            seconds(detection(percentile: 90)).leftPadded(7), "\(visits)".leftPadded(6),
        ].joined(separator: "  ")
    }

    /// The header of ``columns``.
    public static let header = " correct  false/h      p50      p90  visits"
}

extension PresenceSimulation.Report {
    /// The report as the command prints it.
    public var text: String {
        var lines = [
            "venue \(venue): \(count) \(clients == .tags ? "tags heard by the gateways" : "phones in the foreground") × \(Int(seconds)) s\(pauses.map { ", pausing \($0.text) s at each region" } ?? ""), seed \(seed)",
            "room presence: the share of the time the shown room is the true one, false room changes per hour per client, time to show a real room change (visits of at least \(Int(PresenceScore.minimumStay)) s)",
            "method          room: \(PresenceScore.header)   floor: \(PresenceScore.header)",
        ]
        for method in methods {
            lines.append("\(method.name.padded(14))        \(method.room.columns)          \(method.level.columns)")
        }
        if let learned { lines.append(learned.text) }
        return lines.joined(separator: "\n")
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
    func padded(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
