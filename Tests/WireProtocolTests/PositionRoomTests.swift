import Foundation
import Testing

@testable import WireProtocol

/// The optional `room` of a position (issue 17): written only when known, read when present, and
/// shown by `watch`.
@Suite struct PositionRoomTests {
    @Test("room is additive: absent without rooms, present and shown with them")
    func room() throws {
        let plain = String(decoding: try JSONEncoder().encode(Position(x: 1, y: 2, level: "L0")), as: UTF8.self)
        #expect(!plain.contains("room"))
        let withRoom = Position(x: 1, y: 2, level: "L0", confidence: 1.5, room: "Kitchen")
        let decoded = try JSONDecoder().decode(Position.self, from: try JSONEncoder().encode(withRoom))
        #expect(decoded == withRoom)
        let old = try JSONDecoder().decode(Position.self, from: Data("{\"x\":1,\"y\":2,\"level\":\"L0\"}".utf8))
        #expect(old.room == nil)
        #expect(EventFormatter.describe(withRoom) == "1.0,2.0 L0 ±1.5m in Kitchen")
        #expect(EventFormatter.describe(Position(x: 1, y: 2, level: "L0")) == "1.0,2.0 L0")
    }
}
