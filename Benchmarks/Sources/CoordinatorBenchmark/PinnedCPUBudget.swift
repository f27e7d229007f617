import BenchmarkSupport
import Foundation

/// What the pinned end-to-end target leaves the coordinator on its core, from one round's CPU time
/// of each consumer on CPU 1 (user + system, `/proc/<pid>/stat` for the coordinator child,
/// `RUSAGE_CHILDREN` for `mosquitto_sub` once it exited).
///
/// At 0.9 × `mosquitto_sub`'s rate R the one core gives the coordinator 1 / (0.9 R) CPU seconds per
/// sighting at most. `mosquitto_sub` receives the same bytes through the same libmosquitto and
/// does nothing else with them, so its CPU per sighting is what receiving costs; the rest of the
/// budget is what decoding, applying and the once-a-second estimates may cost together. When
/// `mosquitto_sub` leaves its core partly idle (it waits on the broker on the other core), the
/// budget is the idle time plus its own work: the target is then reachable only if the
/// coordinator's work beyond receiving fits in it.
struct PinnedCPUBudget {
    var sightings: Double
    var baselineCPU: Double
    var baselineSeconds: Double
    var coordinatorCPU: Double
    var coordinatorSeconds: Double

    /// Sightings per second each consumer took in.
    var coordinatorRate: Double { sightings / coordinatorSeconds }
    var baselineRate: Double { sightings / baselineSeconds }
    /// The coordinator's rate over the baseline's.
    var ratio: Double { baselineSeconds / coordinatorSeconds }

    /// µs of CPU per sighting.
    var baselinePerSighting: Double { baselineCPU / sightings * 1e6 }
    var coordinatorPerSighting: Double { coordinatorCPU / sightings * 1e6 }
    /// µs per sighting the core has at 0.9 × the baseline's rate.
    var budget: Double { baselineSeconds / sightings / 0.9 * 1e6 }

    /// The round whose coordinator/baseline ratio is the median one (so the figures belong together).
    static func median(_ rounds: [PinnedCPUBudget]) -> PinnedCPUBudget? {
        guard !rounds.isEmpty else { return nil }
        let sorted = rounds.sorted { $0.ratio < $1.ratio }
        return sorted[(sorted.count - 1) / 2]
    }

    var line: String {
        String(
            format:
                "  CPU budget on CPU 1 (median round): mosquitto_sub %.3f µs CPU per sighting (%.0f%% of the core busy), the coordinator binary %.3f µs (%.0f%% busy); at 0.9 x mosquitto_sub's rate the core gives the coordinator %.3f µs per sighting, of which receiving (as mosquitto_sub) takes %.3f, leaving %.3f for decode + apply + estimate; the coordinator spends %.3f beyond receiving (%.2fx what is left)",
            baselinePerSighting, 100 * baselineCPU / baselineSeconds, coordinatorPerSighting, 100 * coordinatorCPU / coordinatorSeconds,
            budget, baselinePerSighting, budget - baselinePerSighting, coordinatorPerSighting - baselinePerSighting,
            (coordinatorPerSighting - baselinePerSighting) / (budget - baselinePerSighting))
    }
}
