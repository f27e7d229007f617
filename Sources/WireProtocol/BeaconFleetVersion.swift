/// The version every role reports in its status messages (`version` in gateway and coordinator status).
public enum BeaconFleetVersion {
    public static let current = "0.1.0"
}
