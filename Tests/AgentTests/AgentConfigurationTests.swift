import BeaconKit
import Testing
import WireProtocol

@testable import Agent

/// Layering (defaults < file < environment < flags) and errors that name where a value came from.
@Suite struct AgentConfigurationTests {
    @Test func laterLayersWin() throws {
        var settings = AgentSettings()
        try settings.apply(
            fileText: """
                # gateway in the lobby
                broker = mqtt://file:1883
                gateway = gw-file
                replay = capture.btsnoop
                window = 2s
                spool = /tmp/spool
                """, path: "agent.conf")
        try settings.apply(environment: ["BEACONFLEET_AGENT_GATEWAY": "gw-env", "BEACONFLEET_AGENT_SPEED": "max", "PATH": "/bin"])
        try settings.set("broker", "mqtt://flag:1884", origin: .flag(name: "broker"))
        let configuration = try AgentConfiguration(settings: settings)
        #expect(configuration.broker == "mqtt://flag:1884")
        #expect(configuration.gateway.rawValue == "gw-env")
        #expect(configuration.windowMicros == 2_000_000)
        #expect(configuration.source == .replay(path: "capture.btsnoop", speed: .max))
        #expect(configuration.spoolLimitBytes == 64 << 20)
        let rendered = settings.rendered()
        #expect(rendered.contains("window = 2s    # agent.conf:5"))
        #expect(rendered.contains("gateway = gw-env    # environment BEACONFLEET_AGENT_GATEWAY"))
    }

    @Test func errorsNameFileLineAndSetting() throws {
        var settings = AgentSettings()
        try settings.apply(fileText: "gateway = gw1\nadapter = hci0\nwindow = soon\n", path: "/etc/beaconfleet/agent.conf")
        let error = #expect(throws: ConfigurationError.self) { try AgentConfiguration(settings: settings) }
        #expect(error?.description.hasPrefix("/etc/beaconfleet/agent.conf:3: window = \"soon\" is not valid") == true)

        var unknown = AgentSettings()
        let unknownError = #expect(throws: ConfigurationError.self) { try unknown.apply(fileText: "\n\nwindows = 1s", path: "a.conf") }
        #expect(unknownError?.description.hasPrefix("a.conf:3: unknown setting \"windows\"") == true)
    }

    @Test func invalidGatewayAndExclusiveSourcesAreRejected() throws {
        var settings = AgentSettings()
        try settings.set("gateway", "gw/1", origin: .flag(name: "gateway"))
        try settings.set("adapter", "hci0", origin: .flag(name: "adapter"))
        #expect(throws: ConfigurationError.self) { try AgentConfiguration(settings: settings) }
        try settings.set("gateway", "gw1", origin: .flag(name: "gateway"))
        try settings.set("replay", "x.btsnoop", origin: .environment(name: "BEACONFLEET_AGENT_REPLAY"))
        let conflict = #expect(throws: ConfigurationError.self) { try AgentConfiguration(settings: settings) }
        #expect(conflict?.description.contains("choose one") == true)
    }

    @Test func filterListsAreCommaSeparatedAndEachItemIsChecked() throws {
        var settings = AgentSettings()
        try settings.apply(fileText: "broker = mqtt://h:1883\ngateway = gw1\nadapter = hci0\nspool = /tmp/s\n", path: "agent.conf")
        #expect(try AgentConfiguration(settings: settings).filter.allowedUUIDs.isEmpty)
        let uuids = "494E5445-4C4C-495F-524F-434B535F4857, E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
        try settings.set("allow-uuid", uuids, origin: .flag(name: "allow-uuid"))
        try settings.set("deny-address", "AA:BB:CC:DD:EE:FF,00:00:00:00:00:B2", origin: .flag(name: "deny-address"))
        let filter = try AgentConfiguration(settings: settings).filter
        #expect(
            filter.allowedUUIDs == [
                BeaconUUID("494E5445-4C4C-495F-524F-434B535F4857")!, BeaconUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!,
            ])
        #expect(filter.deniedAddresses == [BluetoothAddress("AA:BB:CC:DD:EE:FF")!, BluetoothAddress("00:00:00:00:00:B2")!])

        try settings.set("deny-address", "AA:BB:CC:DD:EE:FF, nope", origin: .flag(name: "deny-address"))
        let error = #expect(throws: ConfigurationError.self) { try AgentConfiguration(settings: settings) }
        #expect(error?.description.contains("deny-address") == true)
        #expect(error?.description.contains("comma-separated addresses") == true)
    }

    @Test func passwordsAreMaskedInPrintedConfiguration() throws {
        var settings = AgentSettings()
        try settings.set("broker", "mqtt://user:secret@host:1883", origin: .flag(name: "broker"))
        #expect(!settings.rendered().contains("secret"))
        #expect(settings.rendered().contains("mqtt://user:***@host:1883"))
    }

    @Test func sizesAndDurationsParse() {
        #expect(AgentConfiguration.parseSize("64MiB") == 64 << 20)
        #expect(AgentConfiguration.parseSize("512k") == 512 << 10)
        #expect(AgentConfiguration.parseSize("12x") == nil)
        #expect(AgentConfiguration.parseDuration("500ms") == 0.5)
        #expect(AgentConfiguration.parseDuration("2") == 2)
        #expect(AgentConfiguration.parseDuration("-1s") == nil)
    }
}
