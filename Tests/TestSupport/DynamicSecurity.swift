import Foundation
import Testing

/// mosquitto's dynamic security plugin as Debian installs it (`scripts/setup`): per-phone accounts
/// and roles on a test broker, exactly as `beaconfleet credentials` makes them.
public enum DynamicSecurity {
    /// The plugin's shared library.
    public static let plugin = "/usr/lib/x86_64-linux-gnu/mosquitto_dynamic_security.so"
    /// The tool that writes the plugin's first file.
    static let control = "/usr/bin/mosquitto_ctrl"

    /// Whether the plugin and `mosquitto_ctrl` are installed.
    public static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: plugin) && FileManager.default.isExecutableFile(atPath: control)
    }

    /// Why a test that needs the plugin cannot run.
    public static let missing =
        "mosquitto's dynamic security plugin and mosquitto_ctrl (Debian's mosquitto and mosquitto-clients; scripts/setup) are missing"

    /// `mosquitto_ctrl dynsec init FILE admin PASSWORD`: the plugin's file with its admin account.
    public static func initialize(_ file: String, adminPassword: String) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: control)
        process.arguments = ["dynsec", "init", file, "admin", adminPassword]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        #expect(await process.exited() == 0)
    }

    /// The broker configuration lines that load the plugin with `file` as its state.
    public static func brokerConfiguration(_ file: String) -> [String] {
        ["plugin \(plugin)", "plugin_opt_config_file \(file)"]
    }
}
