public import Topology

extension RadioCalibration {
    /// A venue's gateways and beacons as the fit sees them: gateway *i* is the topology's gateway
    /// *i*, beacon *j* its region *j* (regions without a position or a full beacon identity never
    /// pair). Declared values (`gateways.csv`'s `rssi_offset` and `path_loss_exponent`, a region's
    /// `power`) are fixed; undeclared beacon powers start at `defaultPower`.
    public static func inputs(
        topology: Topology, defaultPower: Double? = nil, gatewayHeight: Double = 2.5, beaconHeight: Double = 2.5
    ) -> (gateways: [GatewayInput], beacons: [BeaconInput]) {
        let power = defaultPower ?? Double(topology.radio.measuredPower)
        let gateways = topology.gateways.map { gateway in
            GatewayInput(
                id: gateway.id, x: gateway.position.x, y: gateway.position.y, height: gateway.height ?? gatewayHeight,
                level: gateway.position.level, fixedOffset: gateway.rssiOffset, fixedExponent: gateway.pathLossExponent)
        }
        let beacons = topology.regions.map { region in
            let placed = region.identity.major != nil && region.identity.minor != nil ? region.position : nil
            return BeaconInput(
                id: region.id, x: placed?.x ?? 0, y: placed?.y ?? 0, height: beaconHeight, level: placed?.level ?? "",
                power: region.measuredPower.map(Double.init) ?? power, powerFixed: region.measuredPower != nil)
        }
        return (gateways, beacons)
    }

    /// Fits a venue from aggregated pairs (gateway and region indices of `topology`).
    public static func fit(topology: Topology, pairs: [CalibrationPair], configuration: CalibrationConfiguration = .init())
        -> RadioCalibration
    {
        let (gateways, beacons) = inputs(topology: topology)
        return fit(gateways: gateways, beacons: beacons, pairs: pairs, configuration: configuration)
    }
}

extension PositionEstimator {
    /// The same estimator with `calibration` applied: each usable gateway fit becomes its anchor's
    /// `rssiOffset` and `exponent`, each fitted beacon power (not declared ones, which the anchors
    /// already carry) its region anchor's offset. Anchor order and indices are unchanged.
    public func calibrated(_ calibration: RadioCalibration) throws(PositionError) -> PositionEstimator {
        var gatewayFits: [String: RadioCalibration.GatewayFit] = [:]
        for fit in calibration.gateways where fit.usable { gatewayFits[Self.anchorID(gateway: fit.id)] = fit }
        var beaconPowers: [String: Double] = [:]
        for fit in calibration.beacons where !fit.flags.contains("fixed") && fit.correction != 0 {
            beaconPowers[Self.anchorID(region: fit.id)] = fit.power
        }
        let reference = configuration.pathLoss.referencePower
        let anchors = self.anchors.map { anchor in
            var anchor = anchor
            if let fit = gatewayFits[anchor.id] {
                anchor.rssiOffset = fit.offset
                anchor.exponent = fit.exponent
            } else if let power = beaconPowers[anchor.id] {
                anchor.rssiOffset = power - reference
            }
            return anchor
        }
        return try PositionEstimator(anchors: anchors, areas: areaByLevel.compactMap { $0 }, configuration: configuration, snapper: snapper)
    }

    /// The same estimator with region beacons' measured powers (dBm at 1 m, by region id) as
    /// phones' ranging shows them (``RangedRadio``); other anchors unchanged.
    public func withRegionPowers(_ powers: [String: Double]) throws(PositionError) -> PositionEstimator {
        let reference = configuration.pathLoss.referencePower
        let byAnchor = Dictionary(powers.map { (Self.anchorID(region: $0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
        let anchors = self.anchors.map { anchor in
            var anchor = anchor
            if let power = byAnchor[anchor.id] { anchor.rssiOffset = power - reference }
            return anchor
        }
        return try PositionEstimator(anchors: anchors, areas: areaByLevel.compactMap { $0 }, configuration: configuration, snapper: snapper)
    }
}
