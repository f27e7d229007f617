/// The beacon formats BeaconKit decodes, named as in the wire contract and `decode --json`.
///
/// A ``Set`` of formats is what the agent's filter keeps and what a command line names
/// (`ibeacon,eddystone-uid`).
public enum BeaconFormat: String, Sendable, Hashable, CaseIterable, Codable {
    /// Apple iBeacon: manufacturer data `4C 00 02 15`, UUID, major, minor, measured power.
    case iBeacon = "ibeacon"
    /// AltBeacon: manufacturer data with beacon code `BE AC` after any company id.
    case altBeacon = "altbeacon"
    /// Eddystone-UID: 10-byte namespace, 6-byte instance.
    case eddystoneUID = "eddystone-uid"
    /// Eddystone-URL: a compressed URL.
    case eddystoneURL = "eddystone-url"
    /// Eddystone-TLM: telemetry (battery, temperature, counters), unencrypted.
    case eddystoneTLM = "eddystone-tlm"
    /// Any other Eddystone frame (EID, encrypted TLM, reserved types).
    case eddystoneUnknown = "eddystone-unknown"

    /// The wire name (`ibeacon`, `eddystone-uid`, …).
    public var name: String { rawValue }

    /// The format's bit in a ``Set``.
    @inline(__always)
    public var bit: UInt8 {
        switch self {
        case .iBeacon: 1 << 0
        case .altBeacon: 1 << 1
        case .eddystoneUID: 1 << 2
        case .eddystoneURL: 1 << 3
        case .eddystoneTLM: 1 << 4
        case .eddystoneUnknown: 1 << 5
        }
    }

    /// The format whose ``bit`` is the single bit set in `bit`; `nil` otherwise.
    public init?(bit: UInt8) {
        guard let format = Self.allCases.first(where: { $0.bit == bit }) else { return nil }
        self = format
    }

    /// A set of formats, as a bit mask: what a filter keeps.
    public struct Set: OptionSet, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// A set of the given formats.
        public init(_ formats: some Sequence<BeaconFormat>) {
            self.init(rawValue: formats.reduce(0) { $0 | $1.bit })
        }

        /// The formats the agent publishes by default: every format with a wire name but
        /// ``BeaconFormat/eddystoneUnknown``.
        public static let published = Set([.iBeacon, .altBeacon, .eddystoneUID, .eddystoneURL, .eddystoneTLM])

        /// Whether `format` is in the set.
        @inline(__always)
        public func contains(_ format: BeaconFormat) -> Bool { rawValue & format.bit != 0 }

        /// The formats in the set, in declaration order.
        public var formats: [BeaconFormat] { BeaconFormat.allCases.filter(contains) }

        /// Parses a comma-separated list of wire names (blanks around names ignored, any case).
        /// Throws the first name that is not a format.
        public init(parsing text: String) throws(UnknownName) {
            var set = Set()
            for part in text.split(separator: ",") {
                let name = String(part.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed()).lowercased()
                if name.isEmpty { continue }
                guard let format = BeaconFormat(rawValue: name) else { throw UnknownName(name: name) }
                set = Set(rawValue: set.rawValue | format.bit)
            }
            self = set
        }

        /// The wire names, comma-separated.
        public var description: String { formats.map(\.name).joined(separator: ",") }
    }

    /// A name in a list of formats that is not a format.
    public struct UnknownName: Error, Sendable, Equatable, CustomStringConvertible {
        /// The name as given (lower-cased).
        public var name: String
        public var description: String {
            "unknown beacon format '\(name)' (known: \(BeaconFormat.allCases.map(\.name).joined(separator: ", ")))"
        }
    }
}
