import BeaconKit
public import Topology

extension PositionEstimatorConfiguration {
    /// The estimator configuration a venue gives the coordinator: its radio (`venue.conf`'s
    /// `power` as the reference of clients whose sightings carry no measured power,
    /// `path-loss-exponent`, `shadowing`) with its ``Topology/PositionTuning`` applied, and
    /// ``offsetFloor`` the venue's `sensitivity` plus twice its shadowing (for a copy that learns
    /// offsets, ``PositionEstimator/learningOffsets(gain:)``); every other value is the
    /// estimator's default.
    public init(venue topology: Topology) {
        let radio = topology.radio
        self = PositionEstimatorConfiguration(
            pathLoss: LogDistanceModel(referencePower: Double(radio.measuredPower), exponent: radio.pathLossExponent),
            shadowingSigma: radio.shadowing, offsetFloor: radio.sensitivity + 2 * radio.shadowing
        ).tuned(topology.positionTuning)
    }

    /// This configuration with a venue's tuning applied: each value the venue sets replaces this
    /// one's, the others are kept.
    public func tuned(_ tuning: PositionTuning) -> PositionEstimatorConfiguration {
        var configuration = self
        if let speed = tuning.walkingSpeed { configuration.walkingSpeed = speed }
        if let gain = tuning.velocityGain { configuration.velocityGain = gain }
        return configuration
    }
}
