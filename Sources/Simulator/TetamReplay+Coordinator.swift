import BeaconKit
public import Coordinator
import Foundation
import Planner
public import Topology
import WireProtocol

/// The tetam tracks through the coordinator: each window's readings become one sightings batch
/// per sensor (the gateway of the same name in a venue of the room, `topology/tetam`), encoded
/// as the agents publish them and handed to a ``Coordinator/CoordinatorEngine`` built from the
/// venue (its estimator as `venue.conf` configures it), which decodes, admits the carried beacon
/// as a tag (`clients.csv`), estimates and plans; after each window the engine's position of
/// the tag (`snapshot(of:)`) is compared with the camera truth.
///
/// The dataset does not record the measured power the beacon advertised, so its sightings carry
/// the model's reference (``TetamReplay/configuration``'s, −59 dBm, a stock iBeacon's), as
/// the simulated tags do; a gateway's line (``TetamSelfCalibration``) is relative to it.
extension TetamReplay {
    /// The identity the carried beacon advertises in the sightings: an iBeacon of the simulated
    /// tags' UUID, which `topology/tetam/clients.csv` admits as a client.
    static let coordinatorTag = SimulatedTag(major: 1, minor: 1)

    /// The coordinator's venue for the room, with each sensor's self-calibrated line on its
    /// gateway's anchor when `selfCalibration` is given: what applying a fit does (the engine's
    /// `apply`, or `gateways.csv`'s `rssi_offset` and `path_loss_exponent`), over the same anchors.
    public func coordinatorVenue(topology: Topology, selfCalibration fit: TetamSelfCalibration?) throws -> CoordinatorVenue {
        let venue = try CoordinatorVenue(topology: topology, budget: topology.budget ?? 20)
        guard let fit else { return venue }
        var lines: [String: (offset: Double, exponent: Double)] = [:]
        for (index, sensor) in dataset.sensors.enumerated() {
            guard topology.gatewayIndex(id: sensor.name) != nil else {
                throw SimulationError.unsuitableTopology(
                    "'\(topology.name)' has no gateway '\(sensor.name)' for the dataset's sensor \(sensor.mac)")
            }
            lines[PositionEstimator.anchorID(gateway: sensor.name)] = (fit.offsets[index], fit.exponents[index])
        }
        let estimator = try PositionEstimator(topology: topology, configuration: venue.estimator.configuration) { anchor in
            guard let line = lines[anchor.id] else { return anchor }
            var anchor = anchor
            anchor.rssiOffset = line.offset
            anchor.exponent = line.exponent
            return anchor
        }
        return venue.replacingEstimator(estimator)
    }

    /// Runs a track's windows through a fresh engine on `venue` and returns, per window, the
    /// distance between the engine's position of the tag after the window and the truth (nil
    /// while the engine has no position for it).
    public func coordinatorErrors(
        _ windows: [Window], venue: CoordinatorVenue, engine configuration: CoordinatorEngine.Configuration = .init()
    ) throws -> [Double?] {
        let topics = try Topics()
        let engine = CoordinatorEngine(venue: venue, configuration: configuration)
        let tag = Self.coordinatorTag
        guard let identity = BeaconIdentity(uuid: tag.uuid, major: tag.major, minor: tag.minor) else {
            throw SimulationError.invalidParameter(name: "tag", reason: "'\(tag.uuid)' is not a UUID")
        }
        let gateways = try dataset.sensors.map { sensor -> (topic: String, id: String) in
            guard let id = Identifier(validating: sensor.name) else {
                throw SimulationError.unsuitableTopology("the sensor name '\(sensor.name)' is not a gateway id")
            }
            return (topics.sightings(id), sensor.name)
        }
        let txPower = Int(self.configuration.pathLoss.referencePower.rounded())
        var feed = GatewayFeed(engine: engine, topics: topics, gateways: gateways.count)
        var errors: [Double?] = []
        errors.reserveCapacity(windows.count)
        for window in windows {
            let now = Int64((window.end * 1000).rounded())
            let end = Date(timeIntervalSince1970: Double(now) / 1000)
            // Every sensor publishes its window, an empty one when it heard nothing (as an agent does).
            for (sensor, gateway) in gateways.enumerated() {
                var sightings: [Sighting] = []
                if let i = window.sensors.firstIndex(of: sensor) {
                    sightings.append(
                        tag.sighting(
                            rssi: window.rssi[i], rssiMax: Int(window.rssi[i].rounded(.up)), count: window.counts[i], txPower: txPower))
                }
                try feed.publish(
                    sightings, gateway: sensor, id: gateway.id, topic: gateway.topic, start: end.addingTimeInterval(-windowLength),
                    end: end,
                    now: now)
            }
            engine.flush(now: now)
            _ = engine.take()
            errors.append(
                engine.snapshot(of: identity.clientIdentifier)?.position.map { hypot($0.x - window.truthX, $0.y - window.truthY) })
        }
        return errors
    }
}
