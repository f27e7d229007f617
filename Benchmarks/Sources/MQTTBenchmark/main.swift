// Publish throughput of the MQTT wrapper against a plain C libmosquitto publisher, same broker,
// same message count and size, same in-flight window, in the same run. Prints rates and the ratio.
// Must show: wrapper ≥ 0.8× the C client's rate.
//
//   scripts/bench mqtt            (or: swift run -c release --package-path Benchmarks MQTTBenchmark [rounds])
import BenchmarkSupport
import Foundation
import MQTT
import MosquittoBaseline
import MosquittoTesting

let payloadSize = 200
let maxInflight = 100
let rounds = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 3
let cases: [(qos: QoS, count: Int)] = [(.atMostOnce, 200_000), (.atLeastOnce, 50_000)]

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

/// The wrapper's fast path: `enqueue` every message, then `drain()` until all are done.
func wrapperPublish(url: BrokerURL, count: Int, qos: QoS) async throws -> Double {
    var configuration = MQTTConfiguration(url: url, clientID: MQTTConfiguration.randomClientID(prefix: "bench-swift"))
    configuration.maxInflight = maxInflight
    configuration.maxQueued = count + 1
    let client = try MQTTClient(configuration: configuration)
    try client.connect()
    try await client.connected()
    let payload = [UInt8](repeating: UInt8(ascii: "x"), count: payloadSize)
    let clock = ContinuousClock()
    let start = clock.now
    for _ in 0..<count {
        try client.enqueue(topic: "bench/swift", payload: payload, qos: qos)
    }
    await client.drain()
    let elapsed = clock.now - start
    await client.disconnect()
    return seconds(elapsed)
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

let broker = try await MosquittoBroker.start()
print(
    "MQTT publish throughput: \(payloadSize)-byte payloads, in-flight window \(maxInflight), mosquitto on 127.0.0.1:\(broker.port), \(rounds) rounds (median)"
)
var ratios: [Double] = []
var figures: [String] = []
var baselines: [String] = []
for (qos, count) in cases {
    var swiftRates: [Double] = []
    var cRates: [Double] = []
    for _ in 0..<rounds {
        // Alternate the two so background load hits both alike.
        let cSeconds = mosquitto_baseline_publish(
            "127.0.0.1", Int32(broker.port), Int32(count), Int32(payloadSize), qos.rawValue, Int32(maxInflight))
        guard cSeconds > 0 else { fatalError("C baseline failed (\(cSeconds))") }
        cRates.append(Double(count) / cSeconds)
        swiftRates.append(Double(count) / (try await wrapperPublish(url: broker.url, count: count, qos: qos)))
    }
    let swiftRate = median(swiftRates)
    let cRate = median(cRates)
    let ratio = swiftRate / cRate
    ratios.append(ratio)
    print(
        String(
            format: "%@ x %d: wrapper %.0f msg/s, C libmosquitto %.0f msg/s, ratio %.2f (target >= 0.80) %@",
            qos.description, count, swiftRate, cRate, ratio, verdict(ratio, measured: cRate > 0) { $0 >= 0.8 }))
    figures.append(String(format: "%.2f at %@ (%.0f msg/s)", ratio, qos.description, swiftRate))
    baselines.append(String(format: "%.0f", cRate))
}
BenchmarkResult.record(
    id: "mqtt", target: "MQTT client: ≥ 0.80 × a plain C libmosquitto publisher",
    figure: "\(ratios.allSatisfy { $0 >= 0.8 } ? "Met" : "Not met"): \(figures.joined(separator: " and ")).",
    baseline: "the C publisher in the same rounds: \(baselines.joined(separator: " and ")) msg/s",
    command: "scripts/bench mqtt")
await broker.stop()
