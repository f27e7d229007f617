import Foundation

/// The ranges of the command line's settings (`--phones NAME=LOW...HIGH`, `--pause MIN-MAX`): one
/// way to read them and one way to print them.
extension ClosedRange<Double> {
    /// `LOW` then `separator` then `HIGH`, or one number for a range of one value: finite, LOW ≤
    /// HIGH; `nil` otherwise.
    public init?(parsing text: some StringProtocol, separator: String = "...") {
        let bounds = String(text).components(separatedBy: separator).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard (1...2).contains(bounds.count), let low = bounds.first!, let high = bounds.last!, low.isFinite, high.isFinite, low <= high
        else { return nil }
        self = low...high
    }

    /// `0-20`, or `60` for a range of one value.
    var text: String {
        lowerBound == upperBound ? "\(lowerBound.formatted(.number))" : "\(lowerBound.formatted(.number))-\(upperBound.formatted(.number))"
    }
}
