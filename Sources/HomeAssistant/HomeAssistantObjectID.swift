/// An id as Home Assistant accepts in a discovery topic: `[a-zA-Z0-9_-]`. A BeaconFleet
/// identifier (`[A-Za-z0-9._-]`) or topic prefix keeps its legal characters, the others become
/// `_`, and then, so that two ids never meet, a suffix of the original's FNV-1a hash (stable
/// across runs, unlike `Hasher`).
public struct HomeAssistantObjectID: Sendable, Hashable, CustomStringConvertible {
    public let description: String

    /// `text` made legal (see the type's description).
    public init(_ text: String) {
        var legal = ""
        var replaced = false
        for scalar in text.unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-" {
                legal.unicodeScalars.append(scalar)
            } else {
                legal.unicodeScalars.append("_")
                replaced = true
            }
        }
        if replaced || legal.isEmpty { legal += "_" + HomeAssistantObjectID.fnv1a(text) }
        description = legal
    }

    /// `parts` each made legal, joined with `_`.
    public init(joining parts: [String]) {
        description = parts.map { HomeAssistantObjectID($0).description }.joined(separator: "_")
    }

    /// The 32-bit FNV-1a hash of `text`'s UTF-8, as 8 hexadecimal digits.
    static func fnv1a(_ text: String) -> String {
        var hash: UInt32 = 0x811C_9DC5
        for byte in text.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
