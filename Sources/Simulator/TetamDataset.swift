public import Foundation

/// The tetam-tracks dataset (Daniş et al., CC0): twelve fixed BLE sensors in a 20.7 × 17.6 m room
/// and one beacon carried along nine tracks, every reading labelled with the beacon's true
/// position from a camera system.
///
/// Read from its own directory (`cnf/tetam.dev`, `cnf/tetam.par`, `trk/*_all_sensors.mbd`); nothing
/// of it is copied into the repository.
public struct TetamDataset: Sendable {
    /// One fixed sensor (a gateway, for BeaconFleet).
    public struct Sensor: Sendable, Hashable {
        /// The sensor's MAC as the track files write it, e.g. `b827eb4521b4`.
        public var mac: String
        /// Its alias, e.g. `sensor10`.
        public var name: String
        public var x: Double
        public var y: Double
        /// Height above the floor, metres.
        public var z: Double
    }

    /// One reading of one sensor with the beacon's true position at that moment.
    public struct Reading: Sendable, Hashable {
        /// Seconds (Unix time).
        public var time: Double
        /// Index into ``TetamDataset/sensors``.
        public var sensor: Int
        public var rssi: Int
        public var x: Double
        public var y: Double
        public var z: Double
    }

    /// A track: its readings in time order.
    public struct Track: Sendable {
        /// The file's name without `_all_sensors.mbd`, e.g. `straight_01`.
        public var name: String
        public var readings: [Reading]
    }

    public var sensors: [Sensor]
    /// The room's rectangle (`limits` in `cnf/tetam.par`), metres.
    public var minX: Double, minY: Double, maxX: Double, maxY: Double
    /// Every track, by name.
    public var tracks: [Track]

    /// Loads the dataset from its directory (the one holding `cnf/` and `trk/`).
    public static func load(directory: URL) throws(SimulationError) -> TetamDataset {
        let devURL = directory.appendingPathComponent("cnf/tetam.dev")
        let parURL = directory.appendingPathComponent("cnf/tetam.par")
        let sensors = try readSensors(devURL)
        let limits = try readLimits(parURL)
        let trackDirectory = directory.appendingPathComponent("trk")
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: trackDirectory.path)
                .filter { $0.hasSuffix("_all_sensors.mbd") }.sorted()
        } catch {
            throw .unreadable(file: trackDirectory.path, reason: "\(error.localizedDescription)")
        }
        guard !names.isEmpty else { throw .missingFile(trackDirectory.appendingPathComponent("*_all_sensors.mbd").path) }
        var tracks: [Track] = []
        for name in names {
            tracks.append(try readTrack(trackDirectory.appendingPathComponent(name), sensors: sensors))
        }
        return TetamDataset(sensors: sensors, minX: limits[0], minY: limits[1], maxX: limits[2], maxY: limits[3], tracks: tracks)
    }

    /// The track with this name.
    public func track(named name: String) -> Track? { tracks.first { $0.name == name } }

    static func readText(_ url: URL) throws(SimulationError) -> String {
        guard FileManager.default.fileExists(atPath: url.path) else { throw .missingFile(url.path) }
        do {
            return try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw .unreadable(file: url.path, reason: error.localizedDescription)
        }
    }

    /// `Dongles:{"mac": [[x, y, z], colour, "alias"], …}` in `cnf/tetam.dev`.
    static func readSensors(_ url: URL) throws(SimulationError) -> [Sensor] {
        let text = try readText(url)
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where line.hasPrefix("Dongles:") {
            let json = line.dropFirst("Dongles:".count)
            guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
                throw .malformed(file: url.path, line: number + 1, reason: "Dongles: is not a JSON object")
            }
            var sensors: [Sensor] = []
            for (mac, value) in object {
                guard let fields = value as? [Any], fields.count >= 3, let position = fields[0] as? [Double], position.count == 3,
                    let name = fields[2] as? String
                else {
                    throw .malformed(file: url.path, line: number + 1, reason: "sensor \(mac): expected [[x, y, z], colour, \"alias\"]")
                }
                sensors.append(Sensor(mac: mac, name: name, x: position[0], y: position[1], z: position[2]))
            }
            return sensors.sorted { $0.name < $1.name }
        }
        throw .malformed(file: url.path, line: 1, reason: "no Dongles: line")
    }

    /// `{"limits": [minX, minY, maxX, maxY], …}` in `cnf/tetam.par`.
    static func readLimits(_ url: URL) throws(SimulationError) -> [Double] {
        let text = try readText(url)
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let limits = object["limits"] as? [Double], limits.count == 4
        else { throw .malformed(file: url.path, line: 1, reason: "expected a JSON object with \"limits\": [minX, minY, maxX, maxY]") }
        return limits
    }

    /// `timestamp,sensorMAC,beaconMAC,RSSI,x,y,z,<9 rotation values>` per line.
    static func readTrack(_ url: URL, sensors: [Sensor]) throws(SimulationError) -> Track {
        let text = try readText(url)
        var indexByMAC: [Substring: Int] = [:]
        for (index, sensor) in sensors.enumerated() { indexByMAC[Substring(sensor.mac)] = index }
        var readings: [Reading] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { continue }
            let fields = trimmed.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 7 else {
                throw .malformed(file: url.path, line: number + 1, reason: "expected at least 7 fields, found \(fields.count)")
            }
            guard let time = Double(fields[0]) else {
                throw .malformed(file: url.path, line: number + 1, reason: "timestamp '\(fields[0])' is not a number")
            }
            guard let sensor = indexByMAC[fields[1]] else {
                throw .malformed(file: url.path, line: number + 1, reason: "sensor '\(fields[1])' is not in cnf/tetam.dev")
            }
            guard let rssi = Int(fields[3]) else {
                throw .malformed(file: url.path, line: number + 1, reason: "RSSI '\(fields[3])' is not an integer")
            }
            guard let x = Double(fields[4]), let y = Double(fields[5]), let z = Double(fields[6]) else {
                throw .malformed(
                    file: url.path, line: number + 1, reason: "position '\(fields[4]),\(fields[5]),\(fields[6])' is not three numbers")
            }
            readings.append(Reading(time: time, sensor: sensor, rssi: rssi, x: x, y: y, z: z))
        }
        // The merged files are only nearly in time order.
        readings.sort { $0.time < $1.time || ($0.time == $1.time && $0.sensor < $1.sensor) }
        let name = url.lastPathComponent.replacingOccurrences(of: "_all_sensors.mbd", with: "")
        return Track(name: name, readings: readings)
    }
}
