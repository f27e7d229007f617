// Runs one in-process workload once, inside `countedRegion`, sized for callgrind:
//
//   valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*countedRegion*' \
//       Benchmarks/.build/release/InstructionCount decode figure
//
// and prints `items N UNIT`; callgrind's total is then the workload's instructions, setup excluded.
// `scripts/bench` runs it for the figure and the baseline and divides.
//
// `InstructionCount capture PATH REPORTS UUID` writes the decode workload's generated btsnoop capture
// instead, its iBeacons with UUID (scripts/e2e-instructions replays it through the agent).
import BenchmarkCases
import Foundation

let arguments = CommandLine.arguments.dropFirst()
if arguments.count == 4, arguments.first == "capture", let reports = Int(Array(arguments)[2]) {
    try DecodeCase.generateCapture(at: URL(fileURLWithPath: Array(arguments)[1]), reports: reports, uuid: arguments.last!)
    exit(0)
}
guard arguments.count == 2, let name = arguments.first, let side = arguments.last, ["figure", "baseline"].contains(side) else {
    FileHandle.standardError.write(
        Data("usage: InstructionCount (\(BenchmarkCases.names.joined(separator: "|"))) (figure|baseline)\n".utf8))
    exit(2)
}
let pair = try BenchmarkCases.make(name, small: true)
let workload = side == "figure" ? pair.figure : pair.baseline
let checksum = countedRegion(workload.run)
print("items \(workload.items) \(workload.unit) (checksum \(checksum & 0xFFFF))")
