/// The self-calibration's tunables: how much evidence a fit needs before it is used, its bounds,
/// how outliers and moved beacons are treated, and how long sightings are remembered.
public struct CalibrationConfiguration: Sendable, Hashable, Codable {
    /// A gateway's fit is used only with at least this many beacons heard (distinct distances)…
    public var minimumBeacons: Int
    /// …and at least this many advertisements in all (decayed weight).
    public var minimumReadings: Double
    /// Advertisements a (gateway, beacon) pair needs before its mean counts.
    public var minimumPairReadings: Double
    /// Path-loss exponents are clamped into this range.
    public var exponentRange: ClosedRange<Double>
    /// Offsets are clamped to ± this many dB.
    public var maximumOffset: Double
    /// The exponent assumed when a gateway's beacons are all at about one distance.
    public var defaultExponent: Double
    /// How strongly each gateway's exponent is pulled towards the venue's pooled one (the slope
    /// of all gateways' lines together), in units of Σ (log10 d − mean)² over its beacons: a
    /// gateway that hears beacons over a short range of distances cannot tell its exponent from
    /// its offset, and an exponent error there becomes an offset error.
    public var exponentPrior: Double
    /// A gateway uses the beacons within the largest distance inside which at least this share of
    /// the venue's beacons is heard steadily: beyond it only lucky readings of far beacons get
    /// through the receiver's sensitivity, and their means read hot (a censoring bias that
    /// flattens the line and skews the offset).
    public var completeness: Double
    /// When pairs say how often they were heard (``CalibrationPair/heardShare``), a pair heard in
    /// at least this share of its gateway's windows has its mean corrected for the windows it was
    /// not heard in; one heard less often, or a beacon not heard at all within the farthest one
    /// heard, counts as an upper bound (see ``CensoredPairs``). The complete radius is then not
    /// needed. 0 turns the correction off.
    public var censoredShare: Double
    /// Pairs closer than this (metres, 3-D) are not used (the near field, the model's minimum distance).
    public var minimumDistance: Double
    /// Huber threshold, robust standard deviations.
    public var huber: Double
    /// A beacon whose residuals across gateways (after its own power is fitted) scatter by more
    /// than this (dB, robust) and more than three times the typical beacon's, or whose power is
    /// off by more than this from the others', is flagged `moved` and left out of the gateways' fits.
    public var movedThreshold: Double
    /// Gateways a beacon must be heard by before its power is fitted or it can be flagged.
    public var minimumGateways: Int
    /// Half-life of the sliding memory, seconds: older sightings count exponentially less.
    public var halfLife: Double
    /// Rounds of alternating gateway lines and beacon powers (and, with censored pairs, their
    /// expected values): at most this many, fewer once no line moves by 0.01 dB.
    public var rounds: Int

    public init(
        minimumBeacons: Int = 4, minimumReadings: Double = 50, minimumPairReadings: Double = 5,
        exponentRange: ClosedRange<Double> = 1.5...4.5, maximumOffset: Double = 20, defaultExponent: Double = 2,
        exponentPrior: Double = 20, completeness: Double = 0.9, censoredShare: Double = 0.05, minimumDistance: Double = 1,
        huber: Double = 1.345, movedThreshold: Double = 4,
        minimumGateways: Int = 3, halfLife: Double = 900, rounds: Int = 20
    ) {
        self.minimumBeacons = minimumBeacons
        self.minimumReadings = minimumReadings
        self.minimumPairReadings = minimumPairReadings
        self.exponentRange = exponentRange
        self.maximumOffset = maximumOffset
        self.defaultExponent = defaultExponent
        self.exponentPrior = exponentPrior
        self.completeness = completeness
        self.censoredShare = censoredShare
        self.minimumDistance = minimumDistance
        self.huber = huber
        self.movedThreshold = movedThreshold
        self.minimumGateways = minimumGateways
        self.halfLife = halfLife
        self.rounds = rounds
    }
}
