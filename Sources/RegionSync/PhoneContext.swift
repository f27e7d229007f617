public import WireProtocol

/// What the app knows about the phone, for every report's `phone` (``PhoneStatus``): its OS,
/// Background App Refresh, Low Power Mode and why the app was launched. ``RegionReportBuilder``
/// adds what the monitor knows: its back end and, unless the app states it here, the location
/// authorization it reads. The coordinator tells from them whether iOS can wake the phone at all.
///
/// `RegionSyncCoreLocation` fills one on iOS (`PhoneContext.current(application:launchOptions:)`);
/// make a new one for every wake, since Low Power Mode and Background App Refresh change.
public struct PhoneContext: Sendable, Hashable {
    /// The OS and its version (`iOS 17.5.1`); cut to ``PhoneStatus/maximumOSBytes`` in the report.
    public var os: String?
    /// The app's location authorization; `nil` leaves it to the monitor.
    public var authorization: LocationAuthorization?
    /// Background App Refresh for the app.
    public var backgroundRefresh: BackgroundRefreshStatus?
    /// Whether Low Power Mode is on.
    public var lowPowerMode: Bool?
    /// Why this process of the app was launched.
    public var launch: LaunchReason?
    /// Whether the app is in the foreground now (`UIApplication.applicationState == .active`).
    public var foreground: Bool?

    /// A context with what the app knows; `nil` for the rest.
    public init(
        os: String? = nil, authorization: LocationAuthorization? = nil, backgroundRefresh: BackgroundRefreshStatus? = nil,
        lowPowerMode: Bool? = nil, launch: LaunchReason? = nil, foreground: Bool? = nil
    ) {
        self.foreground = foreground
        self.os = os
        self.authorization = authorization
        self.backgroundRefresh = backgroundRefresh
        self.lowPowerMode = lowPowerMode
        self.launch = launch
    }

    /// The report's `phone`: this context with the monitor's `backEnd`, and its `authorization`
    /// when the context has none; `nil` when nothing at all is known.
    public func status(backEnd: RegionMonitorBackEnd?, authorization monitorAuthorization: LocationAuthorization?) -> PhoneStatus? {
        let status = PhoneStatus(
            backEnd: backEnd, os: os.map(Self.cut), authorization: authorization ?? monitorAuthorization,
            backgroundRefresh: backgroundRefresh, lowPower: lowPowerMode, launch: launch, foreground: foreground)
        return status == PhoneStatus() ? nil : status
    }

    /// `text` cut at a character boundary to at most ``PhoneStatus/maximumOSBytes`` bytes, so that
    /// a long OS name never gets the report refused.
    static func cut(_ text: String) -> String {
        var cut = Substring(text)
        while cut.utf8.count > PhoneStatus.maximumOSBytes { cut.removeLast() }
        return String(cut)
    }
}
