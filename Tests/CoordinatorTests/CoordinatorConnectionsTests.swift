import Foundation
import MQTT
import TestSupport
import Testing

@testable import Coordinator

/// The coordinator's three connections: the inbound one (subscriptions, will, the sightings stream)
/// and the two beside it that partitioned members publish on.
@Suite("Coordinator connections")
struct CoordinatorConnectionsTests {
    @Test(
        "the inbound connection's network thread is batch-scheduled; the side connections are standard, with ids of their own, clean and without a will"
    )
    func connections() throws {
        let configuration = try CoordinatorConfiguration(
            broker: try BrokerURL(parsing: "mqtt://127.0.0.1:1883"), topologyDirectory: CoordinatorHarness.museum,
            topics: TestVenue.topics, clientID: "coordinator-a")
        let inbound = configuration.mqtt
        #expect(inbound.networkThreadScheduling == .batch)
        #expect(!inbound.cleanSession && inbound.will != nil)
        let live = CoordinatorService.liveConnection(for: inbound)
        let outbound = CoordinatorService.outboundConnection(for: inbound)
        #expect([live.clientID, outbound.clientID] == ["coordinator-a-live", "coordinator-a-out"])
        for side in [live, outbound] {
            #expect(side.networkThreadScheduling == .standard)
            #expect(side.cleanSession && side.will == nil)
            #expect(side.url == inbound.url)
        }
    }
}
