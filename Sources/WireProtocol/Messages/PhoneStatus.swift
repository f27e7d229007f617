/// What a phone says about itself in its report (`phone`): which Core Location back end it runs,
/// its OS, and what decides whether iOS can wake its app at all (``ClientReport/phone``).
///
/// Every field is optional, and a value this build does not know (a newer app's) decodes as
/// `nil`, never as a failure: an unknown answer says nothing, so it never makes a phone wakeable.
public struct PhoneStatus: Codable, Sendable, Hashable {
    /// Which RegionSync back end monitors the regions: `classic` (`CLLocationManager`) or `monitor` (`CLMonitor`).
    public var backEnd: RegionMonitorBackEnd?
    /// The OS and its version as the phone names it (`iOS 17.5.1`); at most ``maximumOSBytes`` bytes.
    public var os: String?
    /// The app's location authorization.
    public var authorization: LocationAuthorization?
    /// Whether Background App Refresh is on for the app.
    public var backgroundRefresh: BackgroundRefreshStatus?
    /// Whether Low Power Mode is on.
    public var lowPower: Bool?
    /// Why this process of the app was launched.
    public var launch: LaunchReason?
    /// Whether the app is in the foreground now (the user has it open): it ranges and reports
    /// every second, and the coordinator plans it as it walks rather than for its next wake.
    public var foreground: Bool?

    /// The longest `os` accepted, in bytes.
    public static let maximumOSBytes = 64

    /// A status with the fields the phone knows; `nil` for the rest.
    public init(
        backEnd: RegionMonitorBackEnd? = nil, os: String? = nil, authorization: LocationAuthorization? = nil,
        backgroundRefresh: BackgroundRefreshStatus? = nil, lowPower: Bool? = nil, launch: LaunchReason? = nil, foreground: Bool? = nil
    ) {
        self.foreground = foreground
        self.backEnd = backEnd
        self.os = os
        self.authorization = authorization
        self.backgroundRefresh = backgroundRefresh
        self.lowPower = lowPower
        self.launch = launch
    }

    enum CodingKeys: String, CodingKey { case backEnd, os, authorization, backgroundRefresh, lowPower, launch, foreground }

    /// Decodes the fields leniently: a value of the right type that this build does not know is `nil`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func known<Value: RawRepresentable>(_ key: CodingKeys) throws -> Value? where Value.RawValue == String {
            try c.decodeIfPresent(String.self, forKey: key).flatMap(Value.init(rawValue:))
        }
        backEnd = try known(.backEnd)
        os = try c.decodeIfPresent(String.self, forKey: .os)
        authorization = try known(.authorization)
        backgroundRefresh = try known(.backgroundRefresh)
        lowPower = try c.decodeIfPresent(Bool.self, forKey: .lowPower)
        launch = try known(.launch)
        foreground = try c.decodeIfPresent(Bool.self, forKey: .foreground)
    }

    /// Whether iOS can wake the app for a region event, by what the phone said: ``Wakeability/no``
    /// when any stated answer rules wakes out (authorization other than `always`, Background App
    /// Refresh off, Low Power Mode on); ``Wakeability/yes`` only when authorization is `always`,
    /// Background App Refresh `available` and Low Power Mode off were all stated;
    /// ``Wakeability/unknown`` otherwise.
    public var wakeability: Wakeability {
        if let authorization, authorization != .always { return .no }
        if let backgroundRefresh, backgroundRefresh != .available { return .no }
        if lowPower == true { return .no }
        return authorization == .always && backgroundRefresh == .available && lowPower == false ? .yes : .unknown
    }
}

/// Which RegionSync back end a phone runs (``PhoneStatus/backEnd``).
public enum RegionMonitorBackEnd: String, Codable, Sendable, Hashable, CaseIterable {
    /// `CLLocationManager` region monitoring (`LocationManagerRegionMonitor`).
    case classic
    /// `CLMonitor`, iOS 17 and later (`MonitorRegionMonitor`).
    case monitor
}

/// The app's location authorization (`CLAuthorizationStatus`; ``PhoneStatus/authorization``).
/// Only `always` lets iOS launch a suspended or terminated app for a region event.
public enum LocationAuthorization: String, Codable, Sendable, Hashable, CaseIterable {
    /// `authorizedAlways`.
    case always
    /// `authorizedWhenInUse`: no background wakes at all.
    case whenInUse
    /// `denied`, or Location Services off.
    case denied
    /// `restricted` (parental controls, MDM).
    case restricted
    /// `notDetermined`: the user has not answered yet.
    case notDetermined
}

/// Whether Background App Refresh is on for the app (`UIBackgroundRefreshStatus`;
/// ``PhoneStatus/backgroundRefresh``). When it is off iOS does not launch the app for region events.
public enum BackgroundRefreshStatus: String, Codable, Sendable, Hashable, CaseIterable {
    /// `.available`.
    case available
    /// `.denied`: the user turned it off (for the app or everywhere).
    case denied
    /// `.restricted` (parental controls, MDM).
    case restricted
}

/// Why the app's process was launched (``PhoneStatus/launch``).
public enum LaunchReason: String, Codable, Sendable, Hashable, CaseIterable {
    /// Into the background by Core Location, for a region event (`launchOptions[.location]`).
    case location
    /// By the user, into the foreground.
    case user
    /// Anything else (a background fetch, a notification, …).
    case other
}

/// Whether iOS can wake a phone's app for region events (``PhoneStatus/wakeability``).
public enum Wakeability: String, Codable, Sendable, Hashable, CaseIterable {
    /// Everything that decides it was stated, and allows wakes.
    case yes
    /// A stated answer rules wakes out: the phone is located only while its app is opened.
    case no
    /// Not said, or not all of it: never counted as wakeable.
    case unknown
}
