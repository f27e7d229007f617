import ArgumentParser
import Foundation
import MQTT
import WireProtocol

/// `beaconfleet watch`: a readable live tail of rotations and events.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print rotations (regions messages) and enter/exit/moved events as they happen.",
        discussion: """
            One line per message: time, client, what changed. Retained regions messages are printed \
            first (the current set of every client), then live traffic. Stops on Ctrl-C.

            Examples:
              beaconfleet watch --broker mqtt://localhost
              beaconfleet watch --broker mqtt://localhost --client phone-7
              beaconfleet watch --broker mqtts://broker:8883 --ca-file ca.pem \\
                  --prefix venue/museum
            """)

    @OptionGroup var connection: CoordinatorBrokerOptions

    @Option(help: "Only this client's rotations and events.")
    var client: String?

    @Flag(help: "Print the raw JSON payloads instead of readable lines.")
    var json = false

    func validate() throws {
        if let client, !Identifier.isValid(client) {
            throw ValidationError("--client \(client): expected 1 to 64 of [A-Za-z0-9._-]")
        }
    }

    func run() async throws {
        let topics = try connection.topics()
        let formatter = EventFormatter(topics: topics, client: client)
        var configuration = MQTTConfiguration(
            url: try connection.url(), clientID: MQTTConfiguration.randomClientID(prefix: "beaconfleet-watch"))
        try connection.apply(to: &configuration)
        let mqtt: MQTTClient
        do {
            mqtt = try MQTTClient(configuration: configuration)
            try mqtt.connect()
            let messages = mqtt.messages
            let url = configuration.url
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await Task.sleep(for: .seconds(10))
                    throw CommandFailure("cannot reach the broker at \(url) within 10 s")
                }
                group.addTask { try await mqtt.connected() }
                try await group.next()
                group.cancelAll()
            }
            for filter in formatter.filters { try await mqtt.subscribe(filter, qos: .atLeastOnce) }
            for await message in messages {
                if json {
                    guard formatter.line(topic: message.topic, payload: message.payload) != nil else { continue }
                    FileHandle.standardOutput.write(Data("\(message.topic) \(message.payloadString)\n".utf8))
                } else if let line = formatter.line(topic: message.topic, payload: message.payload) {
                    FileHandle.standardOutput.write(Data((line + "\n").utf8))
                }
            }
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure("watch: \(error)")
        }
    }
}
