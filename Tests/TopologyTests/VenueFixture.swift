import Foundation
import TestSupport
import Testing
import Topology

/// Example venues and scratch venue directories for the tests.
enum VenueFixture {
    /// `topology/NAME` in the package.
    static func example(_ name: String) -> URL {
        SharedData.packageRoot.appendingPathComponent("topology/\(name)", isDirectory: true)
    }

    /// Each diagnostic as `FILE:LINE: message`, the file by its name only.
    static func messages(_ result: TopologyLoader.Result) -> [String] {
        result.diagnostics.map { "\(URL(fileURLWithPath: $0.location.file).lastPathComponent):\($0.location.line): \($0.message)" }
    }

    /// A fresh temporary directory holding the given files (name → contents).
    static func directory(_ files: [String: String]) throws -> URL {
        try writeTemporaryFiles(files, prefix: "topology-test")
    }

    /// What the loader makes of a fresh temporary directory holding `files`.
    static func load(_ files: [String: String], budget: Int? = nil) throws -> TopologyLoader.Result {
        TopologyLoader(budget: budget).load(directory: try directory(files))
    }

    /// The topology of `files`, expecting no errors (the diagnostics say which, otherwise).
    static func loaded(_ files: [String: String]) throws -> Topology {
        let result = try load(files)
        #expect(result.errors.isEmpty, "\(messages(result))")
        return try #require(result.topology)
    }

    /// A small valid venue: two levels joined by stairs, a corridor of waypoints, six regions,
    /// one pinned wildcard. Tests break it one line at a time.
    static let small: [String: String] = [
        "venue.conf": "name = small\nuuid = 11111111-2222-3333-4444-555555555555\nbudget = 4\n",
        "levels.csv": "id,name\nL0,ground\nL1,upper\n",
        "regions.csv": """
        id,uuid,major,minor,x,y,level,radius,tags
        everywhere,,,,,,,,pinned
        a,,1,1,0,0,L0,1,
        b,,1,2,10,0,L0,2,
        c,,1,3,20,0,L0,1,
        d,,2,1,0,0,L1,1,
        e,,2,2,20,0,L1,1,

        """,
        "waypoints.csv": "id,x,y,level\nw1,5,0,L0\nw2,15,0,L0\n",
        "gateways.csv": "id,x,y,level,z\ng1,10,1,L0,2.5\n",
        "links.csv": """
        from,to,distance,kind
        a,w1,,
        w1,b,,
        b,w2,,
        w2,c,,
        c,e,7,stairs
        e,d,,

        """,
    ]

    /// Expects `small` with `lines` added to its `venue.conf` to load no topology, with each of
    /// `errors` (`FILE:LINE: message`) among its diagnostics.
    static func expectRefused(
        venueConf lines: String, _ errors: [String], sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        let result = try load(small(venueConf: lines))
        let messages = messages(result)
        #expect(result.topology == nil, sourceLocation: sourceLocation)
        for error in errors { #expect(messages.contains(error), "\(messages)", sourceLocation: sourceLocation) }
    }

    /// `small` with one file replaced (added, or left out when `text` is `nil`).
    static func small(replacing name: String, with text: String?) -> [String: String] {
        var files = small
        files[name] = text
        return files
    }

    /// `small` with `lines` added to the end of its `venue.conf`.
    static func small(venueConf lines: String) -> [String: String] {
        small(replacing: "venue.conf", with: small["venue.conf"]! + lines)
    }
}
