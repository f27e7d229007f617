// Agent benchmark: CPU time per advertising report through the whole agent pipeline (replay at max
// speed → decode → filter → aggregate per window → spool → publish QoS 1 to a live mosquitto), and the
// agent's peak resident memory; against a baseline measured in the same run: reading the same capture
// without decoding it (and, for reference, decoding it without the rest of the pipeline).
//
// Each measurement runs in a child process of its own (this executable with `--child MODE`), so
// getrusage's user+sys time and ru_maxrss belong to that measurement alone.
//
//   scripts/bench agent                       # builds release and runs this
//   Benchmarks/.build/release/AgentBenchmark [--reports N] [--beacons B]
import Agent
import BeaconKit
import BenchmarkSupport
import Foundation
import MQTT
import MosquittoTesting
import WireProtocol

struct Measurement: Codable {
    var mode: String
    var reports: Int
    var cpuSeconds: Double
    var maxRSSBytes: Int
    var wallSeconds: Double
    var windows: Int = 0
    var note: String = ""
    var userSeconds: Double = 0
    var systemSeconds: Double = 0
    var anonymousRSSBytes: Int = 0

    var nanosecondsPerReport: Double { reports > 0 ? cpuSeconds * 1e9 / Double(reports) : 0 }
}

func resourceUsage() -> (cpu: Double, maxRSS: Int) {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let cpu =
        Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(
            usage.ru_stime.tv_usec) / 1e6
    return (cpu, usage.ru_maxrss * 1024)  // Linux reports kilobytes
}

func wallClock() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

// MARK: - The generated capture

/// Writes a btsnoop (1002, H4) capture of `reports` iBeacon advertisements from `beacons` beacons,
/// each advertising about every 100 ms, streaming to disk in constant memory.
func writeCapture(path: String, reports: Int, beacons: Int) throws {
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    var chunk: [UInt8] = Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA]
    chunk.reserveCapacity(1 << 20)
    let uuid: [UInt8] = [0xB9, 0x40, 0x7F, 0x30, 0xF5, 0xF8, 0x46, 0x6E, 0xAF, 0xF9, 0x25, 0x55, 0x6B, 0x57, 0xFE, 0x6D]
    let start: Int64 = 1_795_000_000_000_000
    let spacing = Int64(100_000 / beacons)  // all beacons once per 100 ms, evenly spread
    var random: UInt64 = 0x9E37_79B9_7F4A_7C15
    for index in 0..<reports {
        let beacon = index % beacons
        let time = start + Int64(index) * max(1, spacing)
        random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let rssi = UInt8(bitPattern: Int8(-50 - Int((random >> 33) % 45)))
        let major = UInt16(100 + beacon / 100)
        let minor = UInt16(beacon % 100)
        var data: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15]
        data += uuid
        data += [UInt8(major >> 8), UInt8(major & 0xFF), UInt8(minor >> 8), UInt8(minor & 0xFF), 0xC5]
        let report: [UInt8] =
            [0x03, 0x00, UInt8(beacon & 0xFF), UInt8(beacon >> 8), 0x00, 0xEE, 0xFF, 0xC0, UInt8(data.count)] + data + [rssi]
        let packet: [UInt8] = [0x04, 0x3E, UInt8(2 + report.count), 0x02, 0x01] + report
        let length = UInt32(packet.count)
        let stamp = UInt64(bitPattern: time) &+ 0x00dc_ddb3_0f2f_8000
        for value in [length, length, 3, 0] {
            chunk += [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
        }
        for shift in stride(from: 56, through: 0, by: -8) { chunk.append(UInt8(truncatingIfNeeded: stamp >> UInt64(shift))) }
        chunk += packet
        if chunk.count >= 1 << 20 {
            handle.write(Data(chunk))
            chunk.removeAll(keepingCapacity: true)
        }
    }
    handle.write(Data(chunk))
}

// MARK: - Child modes

/// Reads every record without decoding: the floor any pipeline pays.
func measureRead(path: String) throws -> Measurement {
    let wall = wallClock()
    let before = resourceUsage()
    let reader = try CaptureReader(path: path)
    var count = 0
    var checksum = 0
    while let record = try reader.next() {
        count += 1
        checksum &+= record.h4Packet.count
    }
    let after = resourceUsage()
    return Measurement(
        mode: "read", reports: count, cpuSeconds: after.cpu - before.cpu, maxRSSBytes: after.maxRSS, wallSeconds: wallClock() - wall,
        note: "checksum \(checksum)")
}

/// The agent's pipeline (replay, decode, filter, aggregate) without spooling or publishing; with
/// `encode`, each closed window is also encoded as the JSON batch the agent would publish.
func measurePipeline(path: String, encode: Bool) throws -> Measurement {
    let wall = wallClock()
    let before = resourceUsage()
    let counters = PipelineCounters()
    var writer = SightingsBatchWriter()
    var bytes = 0
    let pipeline = SightingsPipeline(
        source: try CaptureReplaySource(path: path, speed: .max), filter: BeaconFilter(), aggregator: WindowAggregator(), counters: counters
    ) { window, _ in
        guard encode else { return }
        bytes +=
            writer.encode(
                gateway: "bench", seq: 1, startMicros: window.startMicros, endMicros: window.endMicros, sightings: window.sightings
            ).count
    }
    try pipeline.run()
    let after = resourceUsage()
    let counts = counters.snapshot
    return Measurement(
        mode: encode ? "+encode" : "pipeline", reports: Int(counts.reports), cpuSeconds: after.cpu - before.cpu, maxRSSBytes: after.maxRSS,
        wallSeconds: wallClock() - wall, windows: Int(counts.windows), note: encode ? "\(bytes) JSON bytes" : "")
}

/// Reads and decodes (BeaconKit) without aggregating or publishing.
func measureDecode(path: String) throws -> Measurement {
    let wall = wallClock()
    let before = resourceUsage()
    let reader = try CaptureReader(path: path)
    var decoder = AdvertisementDecoder()
    while let record = try reader.next() { decoder.decode(record) { _ in } }
    let after = resourceUsage()
    return Measurement(
        mode: "decode", reports: decoder.statistics.advertisingReports, cpuSeconds: after.cpu - before.cpu, maxRSSBytes: after.maxRSS,
        wallSeconds: wallClock() - wall)
}

/// The whole agent, in this process, to the broker at `url`.
func measureAgent(path: String, url: String) async throws -> Measurement {
    let spool = FileManager.default.temporaryDirectory.appendingPathComponent("agent-bench-spool-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: spool) }
    let configuration = try AgentConfiguration(
        broker: url, gateway: try Identifier("bench"), source: .replay(path: path, speed: .max), spoolDirectory: spool)
    var mqtt = MQTTConfiguration(url: try BrokerURL(parsing: url), clientID: "agent-bench")
    mqtt.will = GatewayAgent.lastWill(configuration: configuration, version: "bench")
    let client = try MQTTClient(configuration: mqtt)

    let wall = wallClock()
    let before = resourceUsage()
    let source = try CaptureReplaySource(path: path, speed: .max)
    let agent = try GatewayAgent(configuration: configuration, source: source, client: client, version: "bench")
    try await agent.runWithClient(handleSignals: false)
    let after = resourceUsage()
    let counts = agent.counts
    let spooled = agent.spoolStatistics
    return Measurement(
        mode: "agent", reports: Int(counts.reports), cpuSeconds: after.cpu - before.cpu, maxRSSBytes: after.maxRSS,
        wallSeconds: wallClock() - wall, windows: Int(counts.windows),
        note: "batches left unacknowledged: \(spooled.batches), dropped: \(spooled.dropped)")
}

// MARK: - Parent

/// What PeakMemory reports about the command it ran.
struct PeakMemoryResult: Codable {
    var status: Int32
    var maxRSSBytes: Int
    var userSeconds: Double
    var systemSeconds: Double
}

let benchmarkExecutable: URL = {
    let named = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
    if FileManager.default.isExecutableFile(atPath: named.path) { return named }
    return Bundle.main.executableURL ?? named
}()

/// PeakMemory, built beside this benchmark: it forks the command from a process of a few hundred
/// KiB, so the peak RSS it reports is the command's own (a child forked or spawned from this
/// benchmark would inherit this process's resident set in its high-water mark).
let peakMemory = benchmarkExecutable.deletingLastPathComponent().appendingPathComponent("PeakMemory")

/// Runs `command` under PeakMemory; returns its stdout and PeakMemory's report.
func runMeasured(_ command: [String], quiet: Bool) throws -> (output: Data, usage: PeakMemoryResult) {
    guard FileManager.default.isExecutableFile(atPath: peakMemory.path) else {
        throw NSError(
            domain: "AgentBenchmark", code: 1,
            userInfo: [NSLocalizedDescriptionKey: "\(peakMemory.path) is missing: build the whole benchmark package (scripts/bench agent)"])
    }
    let result = FileManager.default.temporaryDirectory.appendingPathComponent(
        "agent-bench-usage-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).json")
    defer { try? FileManager.default.removeItem(at: result) }
    let process = Process()
    process.executableURL = peakMemory
    process.arguments = (quiet ? ["-q"] : []) + [result.path] + command
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let usage = try JSONDecoder().decode(PeakMemoryResult.self, from: Data(contentsOf: result))
    guard process.terminationStatus == 0, usage.status == 0 else {
        throw NSError(
            domain: "AgentBenchmark", code: Int(usage.status),
            userInfo: [NSLocalizedDescriptionKey: "\(command.joined(separator: " ")) exited with \(usage.status)"])
    }
    return (data, usage)
}

/// One measurement in a child process of its own (this executable with `--child MODE`); its peak
/// RSS as PeakMemory saw it.
func runChild(_ mode: String, path: String, url: String) throws -> Measurement {
    let (data, usage) = try runMeasured([benchmarkExecutable.path, "--child", mode, path, url], quiet: false)
    guard let line = String(data: data, encoding: .utf8)?.split(separator: "\n").last else {
        throw NSError(domain: "AgentBenchmark", code: 1, userInfo: [NSLocalizedDescriptionKey: "child \(mode) printed nothing"])
    }
    var measurement = try JSONDecoder().decode(Measurement.self, from: Data(line.utf8))
    measurement.maxRSSBytes = usage.maxRSSBytes
    return measurement
}

/// The release `beaconfleet-agent` binary (what a gateway runs, and what `beaconfleet agent` execs),
/// replaying the same capture to the same broker: the whole process's CPU time and peak RSS,
/// start-up included. Nil when the binary has not been built.
func measureBinary(path: String, url: String) throws -> Measurement? {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let binary = root.appendingPathComponent(".build/release/beaconfleet-agent")
    guard FileManager.default.isExecutableFile(atPath: binary.path) else { return nil }
    let spool = FileManager.default.temporaryDirectory.appendingPathComponent("agent-bench-binary-spool-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: spool) }
    let wall = wallClock()
    let (_, usage) = try runMeasured(
        [binary.path, "--broker", url, "--gateway", "bench-binary", "--replay", path, "--speed", "max", "--spool", spool], quiet: true)
    let reports = option("--reports", 1_000_000)
    return Measurement(
        mode: "binary", reports: reports, cpuSeconds: usage.userSeconds + usage.systemSeconds, maxRSSBytes: usage.maxRSSBytes,
        wallSeconds: wallClock() - wall, note: "whole process, start-up included", userSeconds: usage.userSeconds,
        systemSeconds: usage.systemSeconds)
}

let arguments = CommandLine.arguments
if arguments.count >= 5, arguments[1] == "--child" {
    let mode = arguments[2]
    let path = arguments[3]
    let url = arguments[4]
    let measurement: Measurement
    switch mode {
    case "read": measurement = try measureRead(path: path)
    case "decode": measurement = try measureDecode(path: path)
    case "pipeline": measurement = try measurePipeline(path: path, encode: false)
    case "encode": measurement = try measurePipeline(path: path, encode: true)
    default: measurement = try await measureAgent(path: path, url: url)
    }
    var final = measurement
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    final.userSeconds = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    final.systemSeconds = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    // Resident memory the process allocated itself (not shared-library pages), at the end of the run.
    if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }),
        let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    {
        final.anonymousRSSBytes = kilobytes * 1024
    }
    print(String(decoding: try JSONEncoder().encode(final), as: UTF8.self))
    exit(0)
}

func option(_ name: String, _ fallback: Int) -> Int {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let value = Int(arguments[index + 1]) else {
        return fallback
    }
    return value
}
let reports = option("--reports", 1_000_000)
let beacons = option("--beacons", 500)
let path = FileManager.default.temporaryDirectory.appendingPathComponent("agent-bench-\(getpid()).btsnoop").path
defer { try? FileManager.default.removeItem(atPath: path) }
print(
    "generating \(reports) iBeacon reports from \(beacons) beacons (\(Double(reports) / Double(beacons) / 10, format: 1) s of recorded time)…"
)
try writeCapture(path: path, reports: reports, beacons: beacons)

let broker = try await MosquittoBroker.start()
defer { broker.kill() }
let url = broker.url.description

let read = try runChild("read", path: path, url: url)
let decode = try runChild("decode", path: path, url: url)
let pipelineOnly = try runChild("pipeline", path: path, url: url)
let encodeToo = try runChild("encode", path: path, url: url)
let agent = try runChild("agent", path: path, url: url)
let binary = try measureBinary(path: path, url: url)
await broker.stop()

func show(_ m: Measurement) {
    print(
        "  \(m.mode.padding(toLength: 7, withPad: " ", startingAt: 0)) \(m.reports) reports, CPU \(m.cpuSeconds, format: 3) s = \(m.nanosecondsPerReport, format: 1) ns/report, (user \(m.userSeconds, format: 3), sys \(m.systemSeconds, format: 3)), wall \(m.wallSeconds, format: 2) s, peak RSS \(Double(m.maxRSSBytes) / 1_048_576, format: 1) MiB (own \(Double(m.anonymousRSSBytes) / 1_048_576, format: 1) MiB)\(m.windows > 0 ? ", \(m.windows) windows" : "")\(m.note.isEmpty ? "" : " (\(m.note))")"
    )
}
print("agent pipeline, replay at max speed to a live mosquitto (each in its own process):")
show(read)
show(decode)
show(pipelineOnly)
show(encodeToo)
show(agent)
print(
    "agent CPU per report: \(agent.nanosecondsPerReport, format: 1) ns (target ≤ 1000 ns) — \(agent.nanosecondsPerReport / max(read.nanosecondsPerReport, 0.001), format: 2)× the read-only baseline, \(agent.nanosecondsPerReport / max(decode.nanosecondsPerReport, 0.001), format: 2)× decode-only"
)
print(
    "agent peak RSS in this benchmark's own executable (shared Swift libraries; the target applies to the release binary below): \(Double(agent.maxRSSBytes) / 1_048_576, format: 1) MiB — \(Double(agent.maxRSSBytes) / Double(max(read.maxRSSBytes, 1)), format: 2)× the read-only baseline process (\(Double(read.maxRSSBytes) / 1_048_576, format: 1) MiB, mostly shared-library pages); memory the agent allocated itself (RssAnon at the end): \(Double(agent.anonymousRSSBytes) / 1_048_576, format: 1) MiB vs \(Double(read.anonymousRSSBytes) / 1_048_576, format: 1) MiB"
)
if let binary {
    show(binary)
    let peak = Double(binary.maxRSSBytes) / 1_048_576
    print(
        "beaconfleet-agent (release binary, \(binary.reports) reports): CPU \(binary.nanosecondsPerReport, format: 1) ns/report, peak RSS \(peak, format: 1) MiB (target ≤ 20 MB = 19.1 MiB: \(verdict(peak) { $0 <= 19.07 })) — \(Double(binary.maxRSSBytes) / Double(max(read.maxRSSBytes, 1)), format: 2)× the read-only baseline process"
    )
    BenchmarkResult.record(
        id: "agent", target: "gateway agent: ≤ 1 µs of CPU per advertising report, resident memory ≤ 20 MB",
        figure:
            "\(verdict(agent.nanosecondsPerReport) { $0 <= 1000 } == "met" && verdict(peak) { $0 <= 19.07 } == "met" ? "Met" : "Not met"): \(agent.nanosecondsPerReport, format: 1) ns per report, and the release `beaconfleet-agent` peaks at \(peak, format: 1) MiB.",
        baseline: "reading the same capture without decoding it: \(read.nanosecondsPerReport, format: 1) ns per report",
        command: "scripts/bench agent")
} else {
    print("beaconfleet-agent not measured: build it first (swift build -c release --product beaconfleet-agent; scripts/bench does)")
}

extension DefaultStringInterpolation {
    mutating func appendInterpolation(_ value: Double, format digits: Int) {
        appendLiteral(String(format: "%.\(digits)f", value))
    }
}
