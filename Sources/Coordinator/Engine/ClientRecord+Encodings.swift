/// The compact encodings ``ClientRecord`` and ``CompactObservation`` keep their fields in, each a
/// raw value with a reserved one, so records stay small (tens of thousands are in memory, and the
/// per-sighting path reads them), behind names that say what the reserved value means. Each is
/// exactly its raw value in memory and every accessor inlines to the comparison it replaces.

/// A number of region slots, or none stated (``unstated``), in one byte: the budget a phone stated,
/// or the capacity it showed.
struct SlotLimit: RawRepresentable, Equatable {
    var rawValue: UInt8

    @inline(__always) init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `slots`, clamped to a byte (255 and above read as ``unstated``).
    @inline(__always) init(clamping slots: Int) { rawValue = UInt8(clamping: slots) }

    /// None stated or shown: the coordinator's budget applies.
    static let unstated = SlotLimit(rawValue: .max)

    /// The slots, `nil` when ``unstated``.
    var slots: Int? { @inline(__always) get { rawValue == .max ? nil : Int(rawValue) } }
}

/// A time in milliseconds since 1970, or ``never``, in eight bytes. Ordered as its milliseconds
/// (``never`` first).
struct Timestamp: RawRepresentable, Comparable {
    var rawValue: Int64

    @inline(__always) init(rawValue: Int64) { self.rawValue = rawValue }

    /// No time yet.
    static let never = Timestamp(rawValue: .min)

    /// The milliseconds since 1970, `nil` when ``never``.
    var milliseconds: Int64? { @inline(__always) get { rawValue == .min ? nil : rawValue } }

    @inline(__always) static func < (a: Timestamp, b: Timestamp) -> Bool { a.rawValue < b.rawValue }
}

/// What an observation measures the client against, in four bytes: a gateway that heard it, or
/// the beacon of a region that a phone ranged (both by the topology's index).
struct Anchor: RawRepresentable, Equatable {
    /// A gateway's index (≥ 0), or `-(index + 1)` for a region's.
    var rawValue: Int32

    @inline(__always) init(rawValue: Int32) { self.rawValue = rawValue }

    /// Gateway `index` heard the client.
    @inline(__always) static func gateway(_ index: Int32) -> Anchor { Anchor(rawValue: index) }
    /// The phone ranged region `index`'s beacon.
    @inline(__always) static func region(_ index: Int32) -> Anchor { Anchor(rawValue: -(index + 1)) }

    /// The gateway's index, `nil` for a region.
    var gateway: Int32? { @inline(__always) get { rawValue >= 0 ? rawValue : nil } }
    /// The region's index, `nil` for a gateway.
    var region: Int32? { @inline(__always) get { rawValue < 0 ? -(rawValue + 1) : nil } }
}

/// One of a phone's region events as evidence of where it is, in four bytes: an enter or an
/// exit of a region (by the topology's index).
struct RegionEvidence: RawRepresentable, Equatable {
    /// The region's index for an enter, `-(index + 1)` for an exit.
    var rawValue: Int32

    @inline(__always) init(rawValue: Int32) { self.rawValue = rawValue }

    @inline(__always) static func enter(_ region: Int32) -> RegionEvidence { RegionEvidence(rawValue: region) }
    @inline(__always) static func exit(_ region: Int32) -> RegionEvidence { RegionEvidence(rawValue: -(region + 1)) }

    /// Whether the phone entered (else it exited).
    var isEnter: Bool { @inline(__always) get { rawValue >= 0 } }
    /// The region entered or exited.
    var region: Int32 { @inline(__always) get { rawValue >= 0 ? rawValue : -(rawValue + 1) } }
}

/// A beacon's measured power at 1 m in dBm, or ``unknown``, in one byte.
struct MeasuredPower: RawRepresentable, Equatable {
    var rawValue: Int8

    @inline(__always) init(rawValue: Int8) { self.rawValue = rawValue }

    /// The power a sighting carries (clamped to a byte), ``unknown`` without one.
    @inline(__always) init(_ dBm: Int16?) { rawValue = dBm.map { Int8(clamping: $0) } ?? .min }

    /// Not stated.
    static let unknown = MeasuredPower(rawValue: .min)

    /// The power in dBm, `nil` when ``unknown``.
    var dBm: Double? { @inline(__always) get { rawValue == .min ? nil : Double(rawValue) } }
}
