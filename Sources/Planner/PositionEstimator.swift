import BeaconKit
public import Foundation

/// Estimates where a client is from radio evidence: gateways' sightings of the client, or the
/// beacons its phone ranged, plus the region enter/exit events the phone reported.
///
/// It is a Bayesian filter with a small state (``PositionState``, 56 bytes per client):
/// 1. each anchor's mean RSSI over the window is compared with the log-distance model
///    (``LogDistanceModel``, plus the anchor's calibration and `floorAttenuation` per floor between them)
///    at every point of a grid over the area the anchors can hear, with a heavy-tailed (Cauchy) loss,
///    so one wild reading only counts for a little;
/// 2. the previous estimate, spread by `walkingSpeed` × elapsed time, is the prior (moved along the
///    client's tracked velocity when `velocityGain` is on);
/// 3. each level the evidence touches is scored by its marginal likelihood; a level change must
///    win by `levelSwitchPenalty`, and anchors on other levels are modelled through the floor, so an
///    anchor heard through a floor does not pull the client onto its level;
/// 4. the posterior's mean and spread become the estimate (with a confidence radius) and the
///    next state; the mean is then snapped onto the walkable graph when a snapper is given;
/// 5. with ``PositionEstimatorConfiguration/offsetGain`` on, the client's own offset
///    (``PositionState/offset``: a hot receiver, a loud tag) moves toward the mean residual of its
///    strong readings at the new estimate, and the next update expects every reading that much higher.
///
/// It is a pure function of its inputs: time comes from the caller, so it is deterministic and
/// `Sendable`; one estimator serves every client of a venue.
public struct PositionEstimator: Sendable {
    /// The anchors, in the order given; observations refer to them by index.
    public let anchors: [PositionAnchor]
    /// Level names, bottom to top (the areas' order first, then other anchors' levels by name).
    public let levels: [String]
    public private(set) var configuration: PositionEstimatorConfiguration
    /// How the grid's likelihood is computed: ``PositionArithmetic/fast``, unless a benchmark or a
    /// test sets the reference `.libm` on a copy.
    public var arithmetic: PositionArithmetic = .fast

    private let anchorIndexByID: [String: Int]
    private let levelIndexByName: [String: Int32]
    private let anchorLevel: [Int32]
    let areaByLevel: [PositionArea?]
    let snapper: (any PositionSnapping)?

    /// - Parameters:
    ///   - anchors: gateways and/or fixed beacons, ids unique.
    ///   - areas: where clients can be, one rectangle per level, listed bottom to top; estimates stay inside.
    ///   - snapper: moves estimates onto the walkable graph (usually the topology).
    public init(
        anchors: [PositionAnchor], areas: [PositionArea] = [], configuration: PositionEstimatorConfiguration = .init(),
        snapper: (any PositionSnapping)? = nil
    ) throws(PositionError) {
        try configuration.validate()
        var byID: [String: Int] = [:]
        for (index, anchor) in anchors.enumerated() {
            guard byID.updateValue(index, forKey: anchor.id) == nil else { throw .duplicateAnchor(id: anchor.id) }
        }
        var levels: [String] = []
        for area in areas where !levels.contains(area.level) { levels.append(area.level) }
        for level in Set(anchors.map(\.level)).subtracting(levels).sorted() { levels.append(level) }
        var levelIndex: [String: Int32] = [:]
        for (index, level) in levels.enumerated() { levelIndex[level] = Int32(index) }
        var areaByLevel = [PositionArea?](repeating: nil, count: levels.count)
        for area in areas { areaByLevel[Int(levelIndex[area.level]!)] = area }
        self.anchors = anchors
        self.levels = levels
        self.configuration = configuration
        self.anchorIndexByID = byID
        self.levelIndexByName = levelIndex
        self.anchorLevel = anchors.map { levelIndex[$0.level]! }
        self.areaByLevel = areaByLevel
        self.snapper = snapper
    }

    /// The same estimator (anchors, calibration, every other setting) learning each client's own
    /// offset at `gain` (``PositionEstimatorConfiguration/offsetGain``, clamped to 0…1). The
    /// coordinator keeps one such estimate per client beside the plain one, for the room it shows.
    public func learningOffsets(gain: Double) -> PositionEstimator {
        var copy = self
        copy.configuration.offsetGain = gain.isFinite ? min(max(gain, 0), 1) : 0
        return copy
    }

    /// The index of the anchor with this id, for building ``PositionObservation``s.
    public func anchorIndex(of id: String) -> Int? { anchorIndexByID[id] }

    /// The index of a level name in ``levels``.
    public func levelIndex(of level: String) -> Int32? { levelIndexByName[level] }

    /// One filter step: folds the window's observations and constraints into the previous state.
    ///
    /// - Parameters:
    ///   - state: the previous ``PositionEstimate/state``, or `nil` for a new client.
    ///   - observations: one or more readings per anchor (several of one anchor are averaged).
    ///   - constraints: the enter (inside) and exit (outside) events of this window.
    ///   - time: the evidence's time, from the caller's clock.
    /// - Returns: the new estimate, or `nil` when there is neither a previous state nor usable evidence.
    public func update(_ state: PositionState?, observations: [PositionObservation], constraints: [PositionConstraint] = [], at time: Date)
        -> PositionEstimate?
    {
        let now = time.timeIntervalSinceReferenceDate
        let config = configuration

        // The prior: the previous estimate, spread by how far the client can have walked since.
        var prior: PositionState? = nil
        if let state, state.level >= 0, Int(state.level) < levels.count {
            let elapsed = max(0, now - state.time)
            if elapsed <= config.maximumAge {
                var spread = state
                spread.variance = state.variance + (config.walkingSpeed * max(elapsed, 0.05)) * (config.walkingSpeed * max(elapsed, 0.05))
                spread.time = max(now, state.time)
                if config.velocityGain > 0 {
                    let ahead = min(elapsed, config.velocityHorizon)
                    spread.x += state.vx * ahead
                    spread.y += state.vy * ahead
                } else {
                    spread.vx = 0
                    spread.vy = 0
                }
                prior = spread
            }
        }

        // Usable readings, merged per anchor (count-weighted mean in dB).
        var rejected = 0
        var merged: [Int: (sum: Double, count: Int, txPower: Double?)] = [:]
        for observation in observations {
            guard observation.anchor >= 0, observation.anchor < anchors.count, observation.count >= 1,
                observation.rssi.isFinite, observation.rssi >= config.minimumRSSI, observation.rssi <= config.maximumRSSI
            else {
                rejected += 1
                continue
            }
            let txPower = observation.txPower.flatMap { $0.isFinite && $0 > -127 && $0 < 20 ? $0 : nil }
            var entry = merged[observation.anchor] ?? (0, 0, nil)
            entry.sum += observation.rssi * Double(observation.count)
            entry.count += observation.count
            entry.txPower = entry.txPower ?? txPower
            merged[observation.anchor] = entry
        }
        let clientOffset = Double(state?.offset ?? 0)
        var terms: [AnchorTerm] = []
        terms.reserveCapacity(merged.count)
        for (index, entry) in merged.sorted(by: { $0.key < $1.key }) {
            let anchor = anchors[index]
            terms.append(
                AnchorTerm(
                    x: anchor.x, y: anchor.y, height: anchor.height, level: anchorLevel[index],
                    rssi: entry.sum / Double(entry.count),
                    reference: (entry.txPower ?? config.pathLoss.referencePower) + anchor.rssiOffset + clientOffset,
                    exponent: anchor.exponent ?? config.pathLoss.exponent,
                    precision: Double(entry.count).squareRoot() / (config.shadowingSigma * config.outlierScale)))
        }
        var regionTerms: [ConstraintTerm] = []
        for constraint in constraints {
            guard let level = levelIndexByName[constraint.level], constraint.x.isFinite, constraint.y.isFinite, !constraint.radius.isNaN
            else {
                rejected += 1
                continue
            }
            regionTerms.append(
                ConstraintTerm(
                    x: constraint.x, y: constraint.y, level: level, radius: constraint.radius, inside: constraint.kind == .inside))
        }

        guard !terms.isEmpty || !regionTerms.isEmpty else {
            guard let prior else { return nil }
            return estimate(from: prior, anchorsUsed: 0, rejected: rejected, isPrediction: true)
        }

        // Candidate levels: wherever the evidence or the prior is.
        var candidates = Set<Int32>()
        for term in terms { candidates.insert(term.level) }
        for term in regionTerms { candidates.insert(term.level) }
        if let prior { candidates.insert(prior.level) }

        var best = bestPosterior(levels: candidates, terms: terms, constraints: regionTerms, prior: prior)
        // One wild reading: drop the worst-fitting anchor and redo the update when it fits far worse
        // than shadowing explains.
        if let first = best, config.outlierRejection > 0, terms.count >= 4 {
            var worst = -1
            var worstZ = config.outlierRejection
            for (index, term) in terms.enumerated() {
                let z = abs(term.rssi - expectedRSSI(term, x: first.x, y: first.y, level: first.level)) * term.precision
                if z > worstZ {
                    worst = index
                    worstZ = z
                }
            }
            if worst >= 0 {
                terms.remove(at: worst)
                rejected += 1
                var remaining = Set<Int32>(terms.map(\.level))
                for term in regionTerms { remaining.insert(term.level) }
                if let prior { remaining.insert(prior.level) }
                best = bestPosterior(levels: remaining, terms: terms, constraints: regionTerms, prior: prior) ?? first
            }
        }
        guard let best else {
            guard let prior else { return nil }
            return estimate(from: prior, anchorsUsed: 0, rejected: rejected, isPrediction: true)
        }
        var next = PositionState(
            x: best.x, y: best.y, variance: best.variance, time: max(now, prior?.time ?? now), level: best.level,
            offset: state?.offset ?? 0)
        if config.offsetGain > 0 { learnOffset(&next, from: terms) }
        if config.velocityGain > 0, let prior, let state, prior.level == best.level {
            // Alpha-beta: the velocity absorbs a share of the correction the evidence made to the prediction.
            let elapsed = max(now - state.time, 0.05)
            var vx = prior.vx + config.velocityGain * (best.x - prior.x) / elapsed
            var vy = prior.vy + config.velocityGain * (best.y - prior.y) / elapsed
            let speed = (vx * vx + vy * vy).squareRoot()
            if speed > config.walkingSpeed {
                vx *= config.walkingSpeed / speed
                vy *= config.walkingSpeed / speed
            }
            next.vx = vx
            next.vy = vy
        }
        return estimate(from: next, anchorsUsed: terms.count, rejected: rejected, isPrediction: false)
    }

    /// A prediction-only step: the previous estimate grown more uncertain for the time passed.
    public func predict(_ state: PositionState, at time: Date) -> PositionEstimate? {
        update(state, observations: [], at: time)
    }

    // MARK: - Internals

    struct AnchorTerm {
        var x: Double, y: Double, height: Double
        var level: Int32
        var rssi: Double
        var reference: Double
        var exponent: Double
        /// 1 / (sigma·scale/√count): multiplies a residual in dB into Cauchy units.
        var precision: Double
    }

    private struct ConstraintTerm {
        var x: Double, y: Double
        var level: Int32
        var radius: Double
        var inside: Bool
    }

    private struct LevelPosterior {
        var level: Int32
        var x: Double
        var y: Double
        var variance: Double
        var score: Double
    }

    private func bestPosterior(levels: Set<Int32>, terms: [AnchorTerm], constraints: [ConstraintTerm], prior: PositionState?)
        -> LevelPosterior?
    {
        var best: LevelPosterior? = nil
        for level in levels.sorted() {
            guard var posterior = posterior(on: level, terms: terms, constraints: constraints, prior: prior) else { continue }
            if let prior, prior.level != level { posterior.score -= configuration.levelSwitchPenalty }
            if best == nil || posterior.score > best!.score { best = posterior }
        }
        return best
    }

    /// Moves the client's offset ``PositionEstimatorConfiguration/offsetGain`` of the way to the
    /// mean residual (each clipped to ±``PositionState/maximumOffset``) of the readings on its
    /// level that the model expects at or above ``PositionEstimatorConfiguration/offsetFloor``, at
    /// its new estimate; three such readings at least. The residuals are taken with the offset
    /// already in the model, so the offset settles where they average zero.
    private func learnOffset(_ state: inout PositionState, from terms: [AnchorTerm]) {
        let limit = Double(PositionState.maximumOffset)
        var sum = 0.0
        var count = 0
        for term in terms where term.level == state.level {
            let expected = expectedRSSI(term, x: state.x, y: state.y, level: state.level)
            guard expected >= configuration.offsetFloor else { continue }
            sum += min(max(term.rssi - expected, -limit), limit)
            count += 1
        }
        guard count >= 3 else { return }
        let offset = Double(state.offset) + configuration.offsetGain * sum / Double(count)
        state.offset = Float(min(max(offset, -limit), limit))
    }

    /// The model's mean RSSI of an anchor's reading of a client at (x, y) on `level`.
    private func expectedRSSI(_ term: AnchorTerm, x: Double, y: Double, level: Int32) -> Double {
        let floors = Double(term.level - level)
        let dz = term.height + floors * configuration.levelHeight - configuration.clientHeight
        let dx = x - term.x
        let dy = y - term.y
        let minimum = configuration.pathLoss.minimumDistance
        let distance2 = max(dx * dx + dy * dy + dz * dz, minimum * minimum)
        return term.reference - 5 * term.exponent * log10(distance2) - abs(floors) * configuration.floorAttenuation
    }

    private func estimate(from state: PositionState, anchorsUsed: Int, rejected: Int, isPrediction: Bool) -> PositionEstimate {
        let level = levels[Int(state.level)]
        let snapped = snapper?.snap(x: state.x, y: state.y, level: level)
        return PositionEstimate(
            x: state.x, y: state.y, level: level, confidence: (2 * state.variance).squareRoot(),
            snapped: snapped, state: state, anchorsUsed: anchorsUsed, rejected: rejected, isPrediction: isPrediction)
    }

    /// The posterior on one level over a grid covering the evidence, summarised by its mean,
    /// variance and log evidence.
    private func posterior(on level: Int32, terms: [AnchorTerm], constraints: [ConstraintTerm], prior: PositionState?) -> LevelPosterior? {
        let config = configuration
        // The searched box: heard anchors (any level, by x/y), constraints on this level, the prior.
        var minX = Double.infinity
        var minY = Double.infinity
        var maxX = -Double.infinity
        var maxY = -Double.infinity
        func include(_ x: Double, _ y: Double, _ margin: Double) {
            minX = min(minX, x - margin)
            maxX = max(maxX, x + margin)
            minY = min(minY, y - margin)
            maxY = max(maxY, y + margin)
        }
        for term in terms { include(term.x, term.y, config.searchMargin) }
        for term in constraints where term.level == level && term.radius.isFinite {
            include(term.x, term.y, term.radius + 2 * config.constraintSoftness)
        }
        if let prior {
            let reach = min(3 * prior.variance.squareRoot(), config.searchMargin)
            include(prior.x, prior.y, reach)
        }
        if let area = areaByLevel[Int(level)] {
            minX = max(minX, area.minX)
            maxX = min(maxX, area.maxX)
            minY = max(minY, area.minY)
            maxY = min(maxY, area.maxY)
            if minX > maxX {
                let x = minX > area.maxX ? area.maxX : area.minX
                minX = x
                maxX = x
            }
            if minY > maxY {
                let y = minY > area.maxY ? area.maxY : area.minY
                minY = y
                maxY = y
            }
        }
        guard minX.isFinite, minY.isFinite, maxX.isFinite, maxY.isFinite else { return nil }

        let width = maxX - minX
        let height = maxY - minY
        var step = config.gridStep
        let cells = (width / step + 1) * (height / step + 1)
        if cells > Double(config.maximumGridPoints) {
            step = ((width * height) / Double(config.maximumGridPoints)).squareRoot()
            step = max(step, max(width, height) / Double(config.maximumGridPoints - 1))
        }
        let columns = max(1, Int((width / step).rounded(.down)) + 1)
        let rows = max(1, Int((height / step).rounded(.down)) + 1)
        let originX = minX + (width - Double(columns - 1) * step) / 2
        let originY = minY + (height - Double(rows - 1) * step) / 2

        // Per-anchor constants for this level.
        let clientHeight = config.clientHeight
        var dz2: [Double] = []
        var floorLoss: [Double] = []
        dz2.reserveCapacity(terms.count)
        floorLoss.reserveCapacity(terms.count)
        for term in terms {
            let floors = Double(term.level - level)
            let dz = term.height + floors * config.levelHeight - clientHeight
            dz2.append(dz * dz)
            floorLoss.append(abs(floors) * config.floorAttenuation)
        }
        let minimumDistance2 = config.pathLoss.minimumDistance * config.pathLoss.minimumDistance
        let softness = config.constraintSoftness

        /// The region constraints' log factor at (x, y).
        func constraintLog(_ x: Double, _ y: Double) -> Double {
            var logp = 0.0
            for term in constraints {
                guard term.level == level else {
                    if term.inside { logp -= 8 }  // an enter on another level is strong evidence against this one
                    continue
                }
                if term.radius == .infinity {  // a level-wide region: anywhere on it
                    if !term.inside { logp -= 50 }
                    continue
                }
                let dx = x - term.x
                let dy = y - term.y
                let distance = (dx * dx + dy * dy).squareRoot()
                let excess = term.inside ? distance - term.radius : term.radius - distance
                if excess > 0 { logp -= 0.5 * (excess / softness) * (excess / softness) }
            }
            return logp
        }
        let moments =
            arithmetic == .fast
            ? fastMoments(
                terms: terms, dz2: dz2, floorLoss: floorLoss, minimumDistance2: minimumDistance2, prior: prior,
                constraintLog: constraints.isEmpty ? nil : constraintLog,
                grid: (originX: originX, originY: originY, step: step, columns: columns, rows: rows))
            : libmMoments(
                terms: terms, dz2: dz2, floorLoss: floorLoss, minimumDistance2: minimumDistance2, prior: prior,
                constraintLog: constraintLog,
                grid: (originX: originX, originY: originY, step: step, columns: columns, rows: rows))
        guard let moments else { return nil }
        let meanX = originX + moments.meanColumn * step
        let meanY = originY + moments.meanRow * step
        let variance = max((moments.varianceColumn + moments.varianceRow) * step * step / 2, max(step * step / 12, 0.01))
        // Log evidence: the integral of the (unnormalised) posterior over the cell area, against a
        // normalised prior (Gaussian) or a uniform one over the searched box.
        let cellArea = step * step
        var score = moments.peak + log(moments.total * cellArea)
        if let prior {
            score -= log(2 * Double.pi * prior.variance)
        } else {
            score -= log(max(Double(columns * rows) * cellArea, cellArea))
        }
        return LevelPosterior(level: level, x: meanX, y: meanY, variance: variance, score: score)
    }

    /// A posterior's grid: its first point, its spacing and its size, row-major.
    typealias Grid = (originX: Double, originY: Double, step: Double, columns: Int, rows: Int)

    /// The ``PositionArithmetic/fast`` posterior: ``anchorLog2Sums(terms:dz2:floorLoss:minimumDistance2:grid:)``
    /// and ``fastMoments(log2Sums:priorRow:priorColumn:constraintLogs:columns:rows:)`` on the grid
    /// widened to a multiple of 4 columns (the extra columns weigh nothing).
    private func fastMoments(
        terms: [AnchorTerm], dz2: [Double], floorLoss: [Double], minimumDistance2: Double, prior: PositionState?,
        constraintLog: ((Double, Double) -> Double)?, grid: Grid
    ) -> GridMoments? {
        let columns = (grid.columns + 3) & ~3
        var wide = grid
        wide.columns = columns
        var sums = Self.anchorLog2Sums(terms: terms, dz2: dz2, floorLoss: floorLoss, minimumDistance2: minimumDistance2, grid: wide)
        // The prior's log factor is a sum of a column's and a row's part.
        var priorColumn = [Float](repeating: 0, count: columns)
        var priorRow = [Float](repeating: 0, count: grid.rows)
        if let prior {
            for column in 0..<grid.columns {
                let dx = grid.originX + Double(column) * grid.step - prior.x
                priorColumn[column] = Float(-0.5 * dx * dx / prior.variance)
            }
            for row in 0..<grid.rows {
                let dy = grid.originY + Double(row) * grid.step - prior.y
                priorRow[row] = Float(-0.5 * dy * dy / prior.variance)
            }
        }
        for column in grid.columns..<columns { priorColumn[column] = -.infinity }
        var constraintLogs: [Float]? = nil
        if let constraintLog {
            var logs = [Float](repeating: 0, count: columns * grid.rows)
            for row in 0..<grid.rows {
                let y = grid.originY + Double(row) * grid.step
                for column in 0..<grid.columns {
                    logs[row * columns + column] = Float(constraintLog(grid.originX + Double(column) * grid.step, y))
                }
            }
            constraintLogs = logs
        }
        return Self.fastMoments(
            log2Sums: &sums, priorRow: priorRow, priorColumn: priorColumn, constraintLogs: constraintLogs, columns: columns, rows: grid.rows
        )
    }

    /// The ``PositionArithmetic/libm`` posterior: every cell and anchor in `Double` with libm's
    /// `log10`, `log1p` and `exp`, the reference the fast path is tested against.
    private func libmMoments(
        terms: [AnchorTerm], dz2: [Double], floorLoss: [Double], minimumDistance2: Double, prior: PositionState?,
        constraintLog: (Double, Double) -> Double, grid: Grid
    ) -> GridMoments? {
        var logs = [Double](repeating: 0, count: grid.columns * grid.rows)
        var peak = -Double.infinity
        for row in 0..<grid.rows {
            let y = grid.originY + Double(row) * grid.step
            for column in 0..<grid.columns {
                let x = grid.originX + Double(column) * grid.step
                var logp = 0.0
                for (i, term) in terms.enumerated() {
                    let dx = x - term.x
                    let dy = y - term.y
                    let distance2 = max(dx * dx + dy * dy + dz2[i], minimumDistance2)
                    let expected = term.reference - 5 * term.exponent * log10(distance2) - floorLoss[i]
                    let z = (term.rssi - expected) * term.precision
                    logp -= log1p(z * z)
                }
                logp += constraintLog(x, y)
                if let prior {
                    let dx = x - prior.x
                    let dy = y - prior.y
                    logp -= 0.5 * (dx * dx + dy * dy) / prior.variance
                }
                logs[row * grid.columns + column] = logp
                peak = max(peak, logp)
            }
        }
        guard peak.isFinite else { return nil }
        var total = 0.0
        var sumColumn = 0.0
        var sumRow = 0.0
        var sumColumn2 = 0.0
        var sumRow2 = 0.0
        for row in 0..<grid.rows {
            for column in 0..<grid.columns {
                let p = exp(logs[row * grid.columns + column] - peak)
                total += p
                sumColumn += p * Double(column)
                sumRow += p * Double(row)
                sumColumn2 += p * Double(column) * Double(column)
                sumRow2 += p * Double(row) * Double(row)
            }
        }
        let meanColumn = sumColumn / total
        let meanRow = sumRow / total
        return GridMoments(
            peak: peak, total: total, meanColumn: meanColumn, meanRow: meanRow,
            varianceColumn: sumColumn2 / total - meanColumn * meanColumn,
            varianceRow: sumRow2 / total - meanRow * meanRow)
    }
}
