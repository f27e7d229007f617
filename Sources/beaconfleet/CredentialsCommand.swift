import ArgumentParser
import Coordinator
import Credentials
import Foundation
import MQTT
import WireProtocol

/// `beaconfleet credentials`: per-phone MQTT accounts with mosquitto's dynamic security plugin.
struct CredentialsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "credentials",
        abstract: "Create and remove per-phone MQTT accounts with mosquitto's dynamic security plugin.",
        discussion: """
            Talks to the plugin over MQTT ($CONTROL/dynamic-security/v1) as its admin account, given \
            in --broker. Each phone may only publish its own report and subscribe to its own regions. \
            See docs/credentials.md for the broker's configuration.

            Examples:
              beaconfleet credentials init --broker mqtt://admin:ADMINPW@broker \\
                  --coordinator-password C0ORD --agent gw-hall:GWPW
              beaconfleet credentials add phone-7 --broker mqtt://admin:ADMINPW@broker
              beaconfleet credentials remove phone-7 --broker mqtt://admin:ADMINPW@broker
            """,
        subcommands: [Initialize.self, Add.self, Remove.self])

    /// `credentials init`: the coordinator's and the agents' roles and accounts.
    struct Initialize: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init", abstract: "Create the coordinator's and the agents' roles, and their accounts.")

        @OptionGroup var connection: CoordinatorBrokerOptions

        @Option(help: "Create the account 'coordinator' with this password.")
        var coordinatorPassword: String?

        @Option(help: "Create an agent account, USER:PASSWORD (repeatable; the user is usually the gateway id).")
        var agent: [String] = []

        func run() async throws {
            let plan = DynamicSecurityPlan(topics: try connection.topics())
            var commands = plan.roles()
            if let coordinatorPassword {
                commands += plan.account("coordinator", password: coordinatorPassword, role: DynamicSecurityPlan.coordinatorRole)
            }
            for account in agent {
                guard let colon = account.firstIndex(of: ":"), colon != account.startIndex, account.index(after: colon) != account.endIndex
                else { throw ValidationError("--agent \(account): expected USER:PASSWORD") }
                commands += plan.account(
                    String(account[..<colon]), password: String(account[account.index(after: colon)...]),
                    role: DynamicSecurityPlan.agentRole)
            }
            try await send(commands, connection: connection)
            print(
                "created roles \(DynamicSecurityPlan.coordinatorRole), \(DynamicSecurityPlan.agentRole)\(coordinatorPassword == nil ? "" : " and account coordinator")\(agent.isEmpty ? "" : ", \(agent.count) agent account\(agent.count == 1 ? "" : "s")")"
            )
        }
    }

    /// `credentials add PHONE`: a phone's role and account; prints its password.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Create a phone's account (username = its client id); prints 'PHONE PASSWORD'.")

        @OptionGroup var connection: CoordinatorBrokerOptions

        @Argument(help: "The phone's client id ([A-Za-z0-9._-], 1 to 64).")
        var phone: String

        @Option(help: "The password (default: 24 random characters).")
        var password: String?

        func run() async throws {
            guard let id = try? Identifier(phone) else { throw ValidationError("\(phone): expected 1 to 64 of [A-Za-z0-9._-]") }
            let secret = password ?? DynamicSecurityPlan.randomPassword()
            try await send(DynamicSecurityPlan(topics: try connection.topics()).addPhone(id, password: secret), connection: connection)
            print("\(id) \(secret)")
        }
    }

    /// `credentials remove PHONE`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Delete a phone's account and role.")

        @OptionGroup var connection: CoordinatorBrokerOptions

        @Argument(help: "The phone's client id.")
        var phone: String

        func run() async throws {
            guard let id = try? Identifier(phone) else { throw ValidationError("\(phone): expected 1 to 64 of [A-Za-z0-9._-]") }
            try await send(DynamicSecurityPlan(topics: try connection.topics()).removePhone(id), connection: connection)
            print("removed \(id)")
        }
    }

    /// Sends `commands` to the plugin and fails with every error it answers.
    static func send(_ commands: [DynamicSecurityPlan.Command], connection: CoordinatorBrokerOptions) async throws {
        var configuration = MQTTConfiguration(
            url: try connection.url(), clientID: MQTTConfiguration.randomClientID(prefix: "beaconfleet-credentials"))
        try connection.apply(to: &configuration)
        let url = configuration.url
        let mqtt = try MQTTClient(configuration: configuration)
        try mqtt.connect()
        let messages = mqtt.messages
        let errors: [String] = try await withThrowingTaskGroup(of: [String]?.self) { group in
            group.addTask {
                try await Task.sleep(for: .seconds(10))
                throw CommandFailure(
                    "no answer from the dynamic security plugin at \(url) within 10 s (is the broker reachable, the plugin loaded, the admin's password right?)"
                )
            }
            group.addTask {
                try await mqtt.connected()
                _ = try await mqtt.subscribe(DynamicSecurityPlan.responseTopic)
                try await mqtt.publish(topic: DynamicSecurityPlan.requestTopic, payload: try DynamicSecurityPlan.request(commands))
                for await message in messages where message.topic == DynamicSecurityPlan.responseTopic {
                    return DynamicSecurityPlan.errors(inResponse: message.payload)
                }
                return nil
            }
            defer { group.cancelAll() }
            guard let answer = try await group.next() else { return ["no answer"] }
            return answer ?? ["an answer that is not the plugin's JSON"]
        }
        await mqtt.disconnect()
        guard errors.isEmpty else { throw CommandFailure("the dynamic security plugin refused: \(errors.joined(separator: "; "))") }
    }
}
