#if canImport(UIKit) && os(iOS)
    import Foundation
    public import RegionSync
    public import UIKit
    public import WireProtocol

    extension PhoneContext {
        /// The phone's context now, for a wake's reports: the OS and its version, Background App
        /// Refresh for the app, Low Power Mode and whether the app is in the foreground, with
        /// `launch` (decided once, at launch: ``WireProtocol/LaunchReason/init(launchOptions:application:)``).
        /// The location authorization is left to the monitor, which reads it.
        @MainActor
        public static func current(launch: LaunchReason?, application: UIApplication) -> PhoneContext {
            let device = UIDevice.current
            return PhoneContext(
                os: "\(device.systemName) \(device.systemVersion)",
                backgroundRefresh: BackgroundRefreshStatus(application.backgroundRefreshStatus),
                lowPowerMode: ProcessInfo.processInfo.isLowPowerModeEnabled, launch: launch,
                foreground: application.applicationState == .active)
        }
    }

    extension LaunchReason {
        /// Why iOS launched the app, from what `application(_:didFinishLaunchingWithOptions:)` has:
        /// ``location`` when `launchOptions` holds `.location` (Core Location launched it into the
        /// background for a region event), ``user`` when it is launching into the foreground,
        /// ``other`` for any other background launch.
        @MainActor
        public init(launchOptions: [UIApplication.LaunchOptionsKey: Any]?, application: UIApplication) {
            if launchOptions?[.location] != nil {
                self = .location
            } else if application.applicationState != .background {
                self = .user
            } else {
                self = .other
            }
        }
    }

    extension BackgroundRefreshStatus {
        /// UIKit's Background App Refresh status as a report states it; `nil` for one this build does not know.
        public init?(_ status: UIBackgroundRefreshStatus) {
            switch status {
            case .available: self = .available
            case .denied: self = .denied
            case .restricted: self = .restricted
            @unknown default: return nil
            }
        }
    }
#endif
