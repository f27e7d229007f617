#if canImport(CoreLocation)
    public import CoreLocation
    public import WireProtocol

    extension LocationAuthorization {
        /// Core Location's authorization status as a report states it; `nil` for a status this
        /// build does not know.
        public init?(_ status: CLAuthorizationStatus) {
            switch status {
            case .authorizedAlways: self = .always
            case .authorizedWhenInUse: self = .whenInUse
            case .denied: self = .denied
            case .restricted: self = .restricted
            case .notDetermined: self = .notDetermined
            @unknown default: return nil
            }
        }

        /// The app's authorization now, read on the main actor from a location manager kept for
        /// that (a manager belongs to the thread that made it); for monitors without a manager of their own.
        @MainActor
        static func current() -> LocationAuthorization? {
            LocationAuthorization(reader.authorizationStatus)
        }

        @MainActor private static let reader = CLLocationManager()
    }
#endif
