/// A record of a venue's CSV files that has an id and the line it was read from.
protocol TopologyRecord {
    var id: String { get }
    var source: SourceLocation { get }
}

extension Region: TopologyRecord {}
extension Waypoint: TopologyRecord {}
extension Gateway: TopologyRecord {}
