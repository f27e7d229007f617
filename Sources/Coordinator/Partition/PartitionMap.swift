public import Topology
import BeaconKit

/// Why a `--partitions` specification was refused.
public struct PartitionSpecError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// A venue's partitions: groups of its levels (a phone moves within a level group, not across
/// venues), each with a stable name every member derives alike (`museum`, or `mall:0+1` for the
/// levels `0` and `1` of `mall`). Without a specification the whole venue is one partition.
///
/// Gateways belong to the partition of their level, regions to the partition of theirs (a region
/// without a level — a venue-wide wildcard — to none).
public struct PartitionMap: Sendable, Equatable {
    /// The topology's name.
    public let venue: String
    /// The partitions' names, in the order given.
    public let names: [String]
    /// The level ids of each partition.
    public let levels: [[String]]
    private let partitionByLevel: [String: Int]
    private let partitionByGateway: [String: Int]
    private let partitionByRegion: [String: Int]

    /// Partitions of `topology` from `spec`: level-id groups separated by `|`, level ids within a
    /// group by `,` (e.g. `0,1|2`). Every level must be in exactly one group. `nil` or empty: one partition.
    public init(topology: Topology, spec: String? = nil) throws(PartitionSpecError) {
        let all = topology.levels.map(\.id)
        var groups: [[String]]
        if let spec, !spec.trimmingCharacters(in: .whitespaces).isEmpty {
            groups = spec.split(separator: "|", omittingEmptySubsequences: false).map { group in
                group.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            }
            let listed = groups.flatMap { $0 }
            if groups.contains(where: \.isEmpty) { throw PartitionSpecError(description: "--partitions \(spec): an empty group") }
            if let unknown = listed.first(where: { !all.contains($0) }) {
                throw PartitionSpecError(
                    description: "--partitions \(spec): \(topology.name) has no level \(unknown) (levels: \(all.joined(separator: ", ")))")
            }
            if Set(listed).count != listed.count || Set(listed) != Set(all) {
                throw PartitionSpecError(
                    description:
                        "--partitions \(spec): every level of \(topology.name) must be in exactly one group (levels: \(all.joined(separator: ", ")))"
                )
            }
        } else {
            groups = [all]
        }
        venue = topology.name
        levels = groups
        names = groups.count == 1 ? [topology.name] : groups.map { "\(topology.name):\($0.joined(separator: "+"))" }
        var byLevel: [String: Int] = [:]
        for (index, group) in groups.enumerated() { for level in group { byLevel[level] = index } }
        partitionByLevel = byLevel
        var byGateway: [String: Int] = [:]
        for gateway in topology.gateways { byGateway[gateway.id] = byLevel[gateway.position.level] }
        partitionByGateway = byGateway
        var byRegion: [String: Int] = [:]
        for region in topology.regions {
            if let level = region.position?.level ?? region.level { byRegion[region.id] = byLevel[level] }
        }
        partitionByRegion = byRegion
    }

    public var count: Int { names.count }
    public func partition(ofLevel level: String) -> Int? { partitionByLevel[level] }
    public func partition(ofGateway id: String) -> Int? { partitionByGateway[id] }
    public func partition(ofRegion id: String) -> Int? { partitionByRegion[id] }
    public func partition(named name: String) -> Int? { names.firstIndex(of: name) }

    /// The gateways of partition `index`.
    public func gateways(of index: Int) -> [String] { partitionByGateway.filter { $0.value == index }.map(\.key).sorted() }
}
