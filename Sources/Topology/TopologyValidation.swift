import BeaconKit

/// The checks that need everything read: unique ids and identities, links between known nodes
/// on sensible levels, one connected walkable graph, a budget that fits the pinned regions.
extension LoadContext {
    /// `items` without those whose id an earlier kept one has, and where each id is kept. A
    /// dropped item is reported as an error, and so is one that `conflict` (asked about an item
    /// that would be kept, with those kept so far) has a message for; it is kept when it has none.
    mutating func keepingFirstOfEachID<Item: TopologyRecord>(
        _ items: [Item], kind: String, conflict: (Item, [Item]) -> String? = { _, _ in nil }
    ) -> ([Item], [String: Int]) {
        var indexByID: [String: Int] = [:]
        var kept: [Item] = []
        for item in items {
            if let first = indexByID[item.id] {
                diagnostics.append(
                    TopologyDiagnostic(.error, item.source, "duplicate \(kind) id '\(item.id)' (first at line \(kept[first].source.line))"))
                continue
            }
            if let message = conflict(item, kept) {
                diagnostics.append(TopologyDiagnostic(.error, item.source, message))
                continue
            }
            indexByID[item.id] = kept.count
            kept.append(item)
        }
        return (kept, indexByID)
    }

    mutating func finish() -> TopologyLoader.Result {
        typealias F = TopologyLoader.FileName
        func located(_ location: SourceLocation, _ severity: TopologyDiagnostic.Severity, _ message: String) -> TopologyDiagnostic {
            TopologyDiagnostic(severity, location, message)
        }
        // Unique region ids and identities.
        var regionByIdentity: [RegionIdentity: Int] = [:]
        let regionByID: [String: Int]
        (regions, regionByID) = keepingFirstOfEachID(regions, kind: "region") { region, kept in
            if let first = regionByIdentity[region.identity] {
                return
                    "duplicate identity \(region.identity): region '\(region.id)' and region '\(kept[first].id)' (line \(kept[first].source.line)) would be the same CoreLocation region"
            }
            regionByIdentity[region.identity] = kept.count
            return nil
        }
        // Waypoint ids share the node namespace with regions.
        let keptRegions = regions
        (waypoints, _) = keepingFirstOfEachID(waypoints, kind: "waypoint") { waypoint, _ in
            regionByID[waypoint.id].map { "duplicate id '\(waypoint.id)': already a region (\(keptRegions[$0].source))" }
        }
        let gatewayByID: [String: Int]
        (gateways, gatewayByID) = keepingFirstOfEachID(gateways, kind: "gateway")
        finishAreas()

        // Nodes: placed regions, then waypoints.
        let levelIndex = Dictionary(levels.enumerated().map { ($1.id, Int32($0)) }, uniquingKeysWith: { a, _ in a })
        var nodeX: [Double] = []
        var nodeY: [Double] = []
        var nodeLevel: [Int32] = []
        var nodeRegion: [Int32] = []
        var nodeRadius: [Double] = []
        var nodeSource: [SourceLocation] = []
        var nodeName: [String] = []
        let capacity = regions.count + waypoints.count
        nodeX.reserveCapacity(capacity)
        nodeY.reserveCapacity(capacity)
        nodeLevel.reserveCapacity(capacity)
        nodeRegion.reserveCapacity(capacity)
        nodeRadius.reserveCapacity(capacity)
        nodeSource.reserveCapacity(capacity)
        var regionNode = [Int32](repeating: -1, count: regions.count)
        var nodeByID: [String: Int32] = [:]
        nodeByID.reserveCapacity(capacity)
        for (index, region) in regions.enumerated() {
            guard let position = region.position, let level = levelIndex[position.level] else { continue }
            regionNode[index] = Int32(nodeX.count)
            nodeByID[region.id] = Int32(nodeX.count)
            nodeX.append(position.x)
            nodeY.append(position.y)
            nodeLevel.append(level)
            nodeRegion.append(Int32(index))
            nodeRadius.append(region.radius)
            nodeSource.append(region.source)
            nodeName.append("region '\(region.id)'")
        }
        for waypoint in waypoints {
            guard let level = levelIndex[waypoint.position.level] else { continue }
            nodeByID[waypoint.id] = Int32(nodeX.count)
            nodeX.append(waypoint.position.x)
            nodeY.append(waypoint.position.y)
            nodeLevel.append(level)
            nodeRegion.append(-1)
            nodeRadius.append(0)
            nodeSource.append(waypoint.source)
            nodeName.append("waypoint '\(waypoint.id)'")
        }
        // Ranks: region order by id, for tie-breaking.
        var nodeRank = [Int32](repeating: .max, count: nodeX.count)
        let byID = regions.indices.sorted { regions[$0].id < regions[$1].id }
        for (rank, region) in byID.enumerated() where regionNode[region] >= 0 {
            nodeRank[Int(regionNode[region])] = Int32(rank)
        }

        // Links.
        var links: [Link] = []
        var edges: [(Int32, Int32, Double)] = []
        links.reserveCapacity(rawLinks.count)
        edges.reserveCapacity(rawLinks.count)
        var edgeByPair: [UInt64: Int] = [:]
        func describe(_ id: String) -> String {
            if gatewayByID[id] != nil { return "'\(id)' is a gateway, not a walkable node (link regions and waypoints)" }
            if let region = regionByID[id], regions[region].position == nil { return "region '\(id)' has no position and cannot be linked" }
            return "unknown node '\(id)' (not a region or waypoint id)"
        }
        for raw in rawLinks {
            var failed = false
            let a = nodeByID[raw.from]
            let b = nodeByID[raw.to]
            if a == nil {
                diagnostics.append(located(raw.source, .error, "from: \(describe(raw.from))"))
                failed = true
            }
            if b == nil {
                diagnostics.append(located(raw.source, .error, "to: \(describe(raw.to))"))
                failed = true
            }
            guard !failed, let a, let b else { continue }
            if a == b {
                diagnostics.append(located(raw.source, .warning, "link from '\(raw.from)' to itself ignored"))
                continue
            }
            let sameLevel = nodeLevel[Int(a)] == nodeLevel[Int(b)]
            let dx = nodeX[Int(a)] - nodeX[Int(b)]
            let dy = nodeY[Int(a)] - nodeY[Int(b)]
            let straight = (dx * dx + dy * dy).squareRoot()
            if !sameLevel, !raw.kind.joinsLevels {
                diagnostics.append(
                    located(
                        raw.source, .error,
                        "'\(raw.from)' and '\(raw.to)' are on different levels (\(levels[Int(nodeLevel[Int(a)])].id), \(levels[Int(nodeLevel[Int(b)])].id)): a link between levels must be stairs, escalator, lift or ramp"
                    ))
                continue
            }
            let distance: Double
            if let explicit = raw.distance {
                distance = explicit
                if sameLevel, explicit + 0.01 < straight {
                    diagnostics.append(
                        located(
                            raw.source, .warning,
                            "distance \(explicit) m is shorter than the straight line between '\(raw.from)' and '\(raw.to)' (\((straight * 100).rounded() / 100) m)"
                        ))
                }
            } else if sameLevel {
                distance = straight
            } else {
                diagnostics.append(
                    located(
                        raw.source, .error, "distance: missing; a \(raw.kind.rawValue) link between levels needs its walking cost in metres"
                    ))
                continue
            }
            let pair = UInt64(UInt32(min(a, b))) << 32 | UInt64(UInt32(max(a, b)))
            if let first = edgeByPair[pair] {
                diagnostics.append(
                    located(
                        raw.source, .warning,
                        "'\(raw.from)' and '\(raw.to)' are already linked at line \(links[first].source.line); the shorter distance is used"
                    ))
                if distance < edges[first].2 {
                    edges[first].2 = distance
                    links[first].distance = distance
                    links[first].isDerived = raw.distance == nil
                }
                continue
            }
            edgeByPair[pair] = links.count
            links.append(
                Link(from: raw.from, to: raw.to, distance: distance, isDerived: raw.distance == nil, kind: raw.kind, source: raw.source))
            edges.append((a, b, distance))
        }

        let graph = WalkingGraph(x: nodeX, y: nodeY, level: nodeLevel, region: nodeRegion, radius: nodeRadius, rank: nodeRank, edges: edges)

        // One connected graph: every part other than the largest is reported at its first node.
        if graph.nodeCount > 0 {
            let (component, sizes) = graph.components()
            if sizes.count > 1 {
                let main = sizes.indices.max { sizes[$0] < sizes[$1] }!
                var reported = Set<Int32>()
                for node in 0..<graph.nodeCount where component[node] != Int32(main) && !reported.contains(component[node]) {
                    reported.insert(component[node])
                    let size = sizes[Int(component[node])]
                    let what =
                        size == 1
                        ? "has no link to the rest of the venue" : "is in a part of \(size) nodes with no link to the rest of the venue"
                    diagnostics.append(
                        located(nodeSource[node], .error, "\(nodeName[node]) \(what) (\(sizes[main]) nodes): it is unreachable"))
                }
            }
        }

        // Levels without nodes.
        var used = [Bool](repeating: false, count: levels.count)
        for level in nodeLevel { used[Int(level)] = true }
        for (index, level) in levels.enumerated() where !used[index] {
            diagnostics.append(located(level.source, .warning, "level '\(level.id)' has no region or waypoint"))
        }

        // Budget.
        let budget = budgetOverride ?? venueBudget ?? 20
        let pinned = regions.filter(\.isPinned)
        if pinned.count > budget {
            let location = budgetOverride == nil ? (budgetLocation ?? pinned[budget].source) : pinned[budget].source
            diagnostics.append(
                located(
                    location, .error,
                    "\(pinned.count) pinned regions exceed the budget of \(budget) (the \(budget + 1)th pinned region is '\(pinned[budget].id)', \(pinned[budget].source))"
                ))
        } else if pinned.count == budget, budget > 0 {
            diagnostics.append(
                located(
                    pinned[budget - 1].source, .warning,
                    "\(pinned.count) pinned regions fill the whole budget of \(budget): no slot is left for nearby regions"))
        }

        diagnostics += detectionDiagnostics(budget: budget - pinned.count, located: located)

        diagnostics.sort { lhs, rhs in
            if lhs.severity != rhs.severity { return lhs.severity == .error }
            if lhs.location.file != rhs.location.file { return lhs.location.file < rhs.location.file }
            return lhs.location.line < rhs.location.line
        }
        guard !diagnostics.contains(where: { $0.severity == .error }) else {
            return TopologyLoader.Result(topology: nil, diagnostics: diagnostics)
        }
        let topology = Topology(
            name: name ?? directoryName, revision: digest.hex, budget: venueBudget, radio: radio, positionTuning: positionTuning,
            presenceTuning: presenceTuning,
            levels: levels, regions: regions,
            waypoints: waypoints, gateways: gateways, links: links, regionNode: regionNode, graph: graph,
            clientPolicy: clientRules.map { ClientPolicy(rules: $0, venueUUIDs: regions.map(\.identity.uuid)) },
            areas: areas, origin: origin
        )
        return TopologyLoader.Result(topology: topology, diagnostics: diagnostics)
    }
}
