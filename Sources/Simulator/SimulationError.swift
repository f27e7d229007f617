/// Why a simulation or replay could not run; every case names the file, line or option at fault.
public enum SimulationError: Error, Hashable, CustomStringConvertible {
    /// A data file could not be read.
    case unreadable(file: String, reason: String)
    /// A line or field of a data file is malformed.
    case malformed(file: String, line: Int, reason: String)
    /// A required file is missing from a dataset directory.
    case missingFile(String)
    /// The venue cannot be simulated (no positioned regions, no walkable links, …).
    case unsuitableTopology(String)
    /// A simulation parameter is out of range.
    case invalidParameter(name: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason): return "\(file): cannot read: \(reason)"
        case .malformed(let file, let line, let reason): return "\(file):\(line): \(reason)"
        case .missingFile(let path): return "\(path): no such file"
        case .unsuitableTopology(let reason): return "topology cannot be simulated: \(reason)"
        case .invalidParameter(let name, let reason): return "\(name): \(reason)"
        }
    }
}
