import Foundation
public import Testing

/// What a test needs from outside the package: `../shared/data`, a built executable.
///
/// On a developer's machine a test whose prerequisite is missing is skipped, saying what is missing.
/// In CI (`CI` set, as CI runs with `CI=true`) it fails with that message instead, so a run that
/// lost its data or its binaries cannot pass by skipping.
public enum Prerequisite {
    /// Whether the tests run in CI: the environment variable `CI` is set and not `false`/`0`.
    public static var isCI: Bool {
        guard let value = ProcessInfo.processInfo.environment["CI"]?.lowercased() else { return false }
        return !["", "0", "false", "no"].contains(value)
    }

    /// `true` when `available`; otherwise `false` (skip), or in CI ``MissingPrerequisite``.
    public static func check(_ available: Bool, _ missing: String) throws(MissingPrerequisite) -> Bool {
        if available { return true }
        if isCI { throw MissingPrerequisite(missing: missing) }
        return false
    }
}

/// A test's prerequisite is missing in CI, where that is a failure rather than a skip.
public struct MissingPrerequisite: Error, CustomStringConvertible {
    /// What is missing, and how to provide it.
    public var missing: String
    public var description: String { "\(missing) (CI is set: a missing prerequisite fails the test instead of skipping it)" }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test (or suite) when `available`; otherwise skips it with `missing` as the reason,
    /// or in CI fails it with that message (see ``Prerequisite``).
    public static func requires(
        _ available: @autoclosure @escaping @Sendable () -> Bool, _ missing: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Self {
        .enabled(Comment(rawValue: missing), sourceLocation: sourceLocation) { try Prerequisite.check(available(), missing) }
    }

    /// Runs with `../shared/data` present (see ``requires(_:_:sourceLocation:)``).
    public static var requiresSharedData: Self {
        .requires(SharedData.isAvailable, SharedData.missingMessage)
    }

    /// Runs with the built `beaconfleet` executable present (see ``requires(_:_:sourceLocation:)``).
    public static var requiresBeaconFleetBinary: Self {
        .requires(BuiltProduct.beaconfleet != nil, BuiltProduct.missingMessage("beaconfleet"))
    }

    /// Runs with mosquitto's dynamic security plugin and `mosquitto_ctrl` installed (see ``DynamicSecurity``).
    public static var requiresDynamicSecurity: Self {
        .requires(DynamicSecurity.isAvailable, DynamicSecurity.missing)
    }
}
