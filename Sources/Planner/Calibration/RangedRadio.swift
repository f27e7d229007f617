import Foundation
public import Topology

/// The venue's region beacons as phones range them: per region, the measured power at 1 m that
/// best explains how often phones standing at a neighbouring region's beacon hear it.
///
/// The venue files declare one power for most beacons, but beacons ship at other powers and are
/// reconfigured (IOS.md: −59 to −80 dBm at 1 m), and the planner's detection ranges follow from
/// the power: a beacon weaker than declared wakes phones later than the plan counts on, a stronger
/// one earlier. Phones' positions come from the same readings, so a power cannot be fitted against
/// the estimate (a weak beacon reads as a far phone). Beacon positions are known, though: a report
/// whose nearest beacon (by its reading) is within ``Configuration/nearDistance`` puts the phone
/// at that beacon, and whether the same report ranged each neighbour is a detection, or not, at a
/// known distance. Per region, the power that makes those detections likeliest under the venue's
/// path-loss exponent, sensitivity and shadowing (a probit model), less
/// ``Configuration/selectionBias``, is its fit, with a prior on the declared power
/// (``Configuration/priorDeviation``) and a standard error from the likelihood's curvature; a fit
/// with enough reports and a small enough error is ``Fit/usable``, and used where it departs from
/// the declared power by ``Configuration/departure`` or more: the position estimator takes the
/// fitted powers (``estimatorPowers``), the planner's ranges those below the declared
/// (``plannerPowers``).
///
/// Cheap on the report path (one pass over what the phone ranged, a counter per neighbour);
/// ``refit()`` runs on the housekeeping tick.
public struct RangedRadio: Sendable {
    /// One region's fit.
    public struct Fit: Sendable, Hashable, Codable {
        /// The region's id.
        public var id: String
        /// The measured power the venue files declare (or the venue's default), dBm at 1 m.
        public var declared: Double
        /// The measured power phones' ranging shows, dBm at 1 m.
        public var power: Double
        /// The standard error of ``power``, dB.
        public var error: Double
        /// Reports behind it: a phone at a neighbour's beacon, hearing this one or not.
        public var samples: Double
        /// Whether the planner plans with ``power`` (enough reports, a small enough error).
        public var usable: Bool
    }

    /// The learner's tuning.
    public struct Configuration: Sendable, Hashable {
        /// A report whose nearest beacon reads within this many metres puts the phone at it.
        public var nearDistance: Double
        /// Neighbours within this straight line (same level) are counted.
        public var pairDistance: Double
        /// Reports a fit needs to be used.
        public var minimumSamples: Double
        /// The largest standard error, dB, of a fit that is used.
        public var maximumError: Double
        /// The prior's standard deviation around the declared power, dB.
        public var priorDeviation: Double
        /// Reports per pair after which older ones count half (the radio may change: a beacon replaced).
        public var pairMemory: Float
        /// dB taken off the likeliest power: the phones that qualify as standing at a beacon most
        /// often, and hear its neighbours most, are those that hear far (a hot receiver, a low
        /// path-loss exponent), which pulls the likeliest power 1.5–4.5 dB above the true one
        /// (measured with `simulate`'s phone families, whose true powers it knows).
        public var selectionBias: Double
        /// dB a usable fit must depart from the declared power to be used: nearer, the declared
        /// power is as good, and positions moved by the difference only shuffled which phones
        /// missed an arrival (`simulate`, the `ios` family; with beacons 10 dB weaker than
        /// declared the fits depart by more and are used).
        public var departure: Double

        /// 3 m, 20 m, 30 reports, 3 dB, 10 dB, 400 reports per pair, 3 dB, 5 dB.
        public init(
            nearDistance: Double = 3, pairDistance: Double = 20, minimumSamples: Double = 30, maximumError: Double = 3,
            priorDeviation: Double = 10, pairMemory: Float = 400, selectionBias: Double = 3,
            departure: Double = 5
        ) {
            self.selectionBias = selectionBias
            self.departure = departure
            self.nearDistance = nearDistance
            self.pairDistance = pairDistance
            self.minimumSamples = minimumSamples
            self.maximumError = maximumError
            self.priorDeviation = priorDeviation
            self.pairMemory = pairMemory
        }
    }

    public let configuration: Configuration
    let radio: RadioEnvironment
    let ids: [String]
    let declared: [Double]
    /// Per region: the placed regions on its level within ``Configuration/pairDistance``, with the
    /// distance from a phone at its beacon (1.3 m below it) to theirs.
    let neighbours: [[(region: Int32, distance: Double)]]
    /// Per (beacon a phone stood at, neighbour) pair: the reports, and those that ranged the neighbour.
    private var pairs: [Int64: (heard: Float, total: Float)] = [:]
    /// Per region: the usable fit's correction to the declared power, dB (0 without one): where
    /// its readings place a phone.
    private var corrections: [Double]
    public private(set) var fits: [Fit] = []

    /// A learner for `topology`'s regions, starting from the declared powers.
    public init(topology: Topology, configuration: Configuration = Configuration()) {
        self.configuration = configuration
        radio = topology.radio
        ids = topology.regions.map(\.id)
        declared = topology.regions.map { Double($0.measuredPower ?? topology.radio.measuredPower) }
        corrections = Array(repeating: 0, count: topology.regions.count)
        var neighbours: [[(region: Int32, distance: Double)]] = Array(repeating: [], count: topology.regions.count)
        for (index, region) in topology.regions.enumerated() {
            guard let here = region.position else { continue }
            for other in topology.regions(near: here, within: configuration.pairDistance) where other != index {
                guard let there = topology.regions[other].position, there.level == here.level else { continue }
                let apart = here.distance(to: there)
                guard apart <= configuration.pairDistance else { continue }
                neighbours[index].append((Int32(other), (apart * apart + 1.69).squareRoot()))
            }
        }
        self.neighbours = neighbours
    }

    /// The measured power the planner's ranges go by, per region: where a fit is used
    /// (``isUsed(_:)``), the fitted power, but never above the declared one (a beacon heard weaker
    /// than declared wakes phones later, so its range shrinks; one heard stronger keeps the
    /// declared range: a shield must wake the phones that hear least, and with phones of many
    /// radios longer ranges cost more arrivals than they save, measured with `simulate`); else
    /// `nil` (the declared one).
    public var plannerPowers: [Double?] {
        var powers = [Double?](repeating: nil, count: declared.count)
        for (index, fit) in fits.enumerated() where isUsed(fit) { powers[index] = Swift.min(declared[index], fit.power) }
        return powers
    }

    /// The fitted powers the position estimator goes by, by region id (fits ``isUsed(_:)`` only).
    public var estimatorPowers: [String: Double] {
        var powers: [String: Double] = [:]
        for fit in fits where isUsed(fit) { powers[fit.id] = fit.power }
        return powers
    }

    /// Whether the estimator and the planner go by `fit`: it is ``Fit/usable`` and departs from the
    /// declared power by at least ``Configuration/departure``.
    public func isUsed(_ fit: Fit) -> Bool { fit.usable && abs(fit.power - fit.declared) >= configuration.departure }

    /// Reports counted so far (pairs of a phone at one beacon and a neighbour heard or not).
    public var samples: Double { pairs.values.reduce(0) { $0 + Double($1.total) } }

    /// One report's ranging: region indices with their RSSI (0 = not measured, skipped).
    public mutating func observe(_ ranged: [(region: Int, rssi: Double)]) {
        let model = radio.distanceModel
        var at = -1
        var nearest = configuration.nearDistance
        for (region, rssi) in ranged where rssi != 0 && region >= 0 && region < declared.count && !neighbours[region].isEmpty {
            let distance = model.distance(forRSSI: rssi, referencePower: declared[region] + corrections[region])
            if distance <= nearest {
                nearest = distance
                at = region
            }
        }
        guard at >= 0 else { return }
        let count = Int64(declared.count)
        for (other, _) in neighbours[at] {
            let key = Int64(at) * count + Int64(other)
            let heard: Float = ranged.contains(where: { $0.region == Int(other) && $0.rssi != 0 }) ? 1 : 0
            var tally = pairs[key] ?? (0, 0)
            if tally.total >= configuration.pairMemory {
                tally.heard /= 2
                tally.total /= 2
            }
            tally.heard += heard
            tally.total += 1
            pairs[key] = tally
        }
    }

    /// Fits every region's power from the reports counted (see the type's description).
    public mutating func refit() {
        let count = Int64(declared.count)
        var byRegion: [[(distance: Double, heard: Double, total: Double)]] = Array(repeating: [], count: declared.count)
        for (at, list) in neighbours.enumerated() {
            for (other, distance) in list {
                guard let tally = pairs[Int64(at) * count + Int64(other)] else { continue }
                byRegion[Int(other)].append((distance, Double(tally.heard), Double(tally.total)))
            }
        }
        let n = radio.pathLossExponent
        let sigma = Swift.max(radio.shadowing, 1)
        let prior = configuration.priorDeviation
        var fits: [Fit] = []
        fits.reserveCapacity(declared.count)
        for (region, evidence) in byRegion.enumerated() {
            let samples = evidence.reduce(0) { $0 + $1.total }
            // The log-posterior of a correction: detections at each distance under the probit
            // model, and the prior on the declared power.
            func score(_ correction: Double) -> Double {
                var sum = -0.5 * (correction / prior) * (correction / prior)
                for pair in evidence {
                    let mean = declared[region] + correction - 10 * n * log10(pair.distance)
                    let p = Swift.min(Swift.max(StandardNormal.distribution((mean - radio.sensitivity) / sigma), 1e-6), 1 - 1e-6)
                    sum += pair.heard * log(p) + (pair.total - pair.heard) * log(1 - p)
                }
                return sum
            }
            var best = 0.0
            var bestScore = -Double.infinity
            if !evidence.isEmpty {
                for step in -60...40 {
                    let correction = Double(step) * 0.5
                    let value = score(correction)
                    if value > bestScore {
                        bestScore = value
                        best = correction
                    }
                }
            }
            // The standard error from the curvature at the best correction.
            let h = 0.5
            let curvature = evidence.isEmpty ? 0 : (2 * bestScore - score(best - h) - score(best + h)) / (h * h)
            let error = curvature > 0 ? 1 / curvature.squareRoot() : prior
            let usable = samples >= configuration.minimumSamples && error <= configuration.maximumError
            let power = declared[region] + best - (evidence.isEmpty ? 0 : configuration.selectionBias)
            corrections[region] = usable ? power - declared[region] : 0
            fits.append(Fit(id: ids[region], declared: declared[region], power: power, error: error, samples: samples, usable: usable))
        }
        self.fits = fits
    }

    /// Takes fits a previous run made (by region id; ids this venue does not have are ignored), so
    /// the planner uses them at once; reports counted since replace them at the next ``refit()``.
    public mutating func restore(_ stored: [Fit]) {
        let byID = Dictionary(stored.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        fits = ids.enumerated().map { index, id in
            guard var fit = byID[id] else {
                return Fit(
                    id: id, declared: declared[index], power: declared[index], error: configuration.priorDeviation, samples: 0,
                    usable: false)
            }
            fit.declared = declared[index]
            return fit
        }
        for (index, fit) in fits.enumerated() { corrections[index] = fit.usable ? fit.power - declared[index] : 0 }
    }
}
