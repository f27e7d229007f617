/// The checks a suspended phone needs of the declared detection ranges (``RadioEnvironment``):
/// a region must be detectable before a phone arrives within its radius, and no place should have
/// more regions in range at once than a phone has slots for them.
extension LoadContext {
    func detectionDiagnostics(
        budget slots: Int, located: (SourceLocation, TopologyDiagnostic.Severity, String) -> TopologyDiagnostic
    ) -> [TopologyDiagnostic] {
        var diagnostics: [TopologyDiagnostic] = []
        let placed = regions.indices.filter { regions[$0].position != nil }
        let ranges = regions.map { radio.detectionRange(measuredPower: $0.measuredPower) }
        func metres(_ value: Double) -> String { String((value * 10).rounded() / 10) }

        // Detected no farther than its radius: iOS can only wake a phone already there.
        for index in placed where ranges[index] <= regions[index].radius {
            let region = regions[index]
            let power = region.measuredPower ?? radio.measuredPower
            diagnostics.append(
                located(
                    region.source, .warning,
                    "region '\(region.id)' is detected only within \(metres(ranges[index])) m of its beacon (power \(power) dBm at 1 m), no farther than its radius of \(metres(region.radius)) m: a suspended phone arrives before iOS can wake it (raise its power or shrink its radius)"
                ))
        }

        // Crowding: at each beacon, how many regions of its level are detectable at once.
        guard slots > 0, let widest = placed.map({ ranges[$0] }).max(), widest > 0 else { return diagnostics }
        struct Cell: Hashable { var x: Int, y: Int, level: String }
        func cell(_ point: VenuePoint) -> Cell {
            Cell(x: Int((point.x / widest).rounded(.down)), y: Int((point.y / widest).rounded(.down)), level: point.level)
        }
        var grid: [Cell: [Int]] = [:]
        for index in placed { grid[cell(regions[index].position!), default: []].append(index) }
        var worst: [String: (count: Int, at: Int)] = [:]
        for index in placed {
            let point = regions[index].position!
            let home = cell(point)
            var count = 0
            for dx in -1...1 {
                for dy in -1...1 {
                    for other in grid[Cell(x: home.x + dx, y: home.y + dy, level: point.level)] ?? [] {
                        let p = regions[other].position!
                        let distance = ((p.x - point.x) * (p.x - point.x) + (p.y - point.y) * (p.y - point.y)).squareRoot()
                        if distance <= ranges[other] { count += 1 }
                    }
                }
            }
            if count > slots, count > worst[point.level]?.count ?? 0 { worst[point.level] = (count, index) }
        }
        for (level, crowd) in worst.sorted(by: { $0.key < $1.key }) {
            let region = regions[crowd.at]
            diagnostics.append(
                located(
                    region.source, .warning,
                    "at region '\(region.id)' on level '\(level)', \(crowd.count) regions are detectable at once, more than the \(slots) slots a phone has for them: a phone there cannot monitor every region it is inside (lower some beacons' power, or tag fewer regions pinned)"
                ))
        }
        return diagnostics
    }
}
