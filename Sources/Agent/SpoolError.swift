/// What can go wrong with the on-disk spool; every case names the file.
public enum SpoolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The spool directory could not be created or opened.
    case cannotOpenDirectory(path: String, errno: Int32)
    /// Another agent holds the spool's lock.
    case inUse(path: String)
    /// A spool file could not be opened, read or written.
    case io(path: String, operation: String, errno: Int32)
    /// One batch is larger than the whole spool may hold.
    case batchTooLarge(bytes: Int, limit: UInt64)

    public var description: String {
        switch self {
        case .cannotOpenDirectory(let path, let errno):
            return "cannot use spool directory \(path): \(SpoolError.text(errno)); create it, or pass --spool DIR with a writable directory"
        case .inUse(let path):
            return "spool directory \(path) is in use by another agent (its lock file is held); give each agent its own --spool DIR"
        case .io(let path, let operation, let errno):
            return "spool file \(path): \(operation) failed: \(SpoolError.text(errno))"
        case .batchTooLarge(let bytes, let limit):
            return "a sightings batch of \(bytes) bytes does not fit a spool bounded at \(limit) bytes; raise --spool-limit"
        }
    }

    static func text(_ code: Int32) -> String {
        switch code {
        case 2: return "no such file or directory (ENOENT)"
        case 13: return "permission denied (EACCES)"
        case 28: return "no space left on device (ENOSPC)"
        case 30: return "read-only file system (EROFS)"
        default: return "errno \(code)"
        }
    }
}
