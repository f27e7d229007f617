import Topology

extension CoordinatorEngine {
    /// Observations kept per client, so the most anchors one estimate uses: the venue's
    /// `anchors-per-estimate` (``Topology/PositionTuning/anchorsPerEstimate``), else the
    /// configuration's ``Configuration/maximumObservations``. Read per batch, so a topology
    /// reload that changes it applies to the next sightings.
    var maximumObservations: Int { venue.topology.positionTuning.anchorsPerEstimate ?? configuration.maximumObservations }
}
