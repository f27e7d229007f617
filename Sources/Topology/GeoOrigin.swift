import Foundation

/// Where a venue's local metres sit on the Earth: the WGS 84 latitude and longitude of its origin
/// (`venue.conf`'s `origin-lat` and `origin-lon`), and the local tangent-plane projection between
/// the two.
///
/// x is metres east and y metres north of the origin: x = N(φ₀)·cos φ₀·Δλ, y = M(φ₀)·Δφ, with the
/// WGS 84 ellipsoid's prime-vertical (N) and meridional (M) radii of curvature at the origin's
/// latitude. The inverse is exact, so metres → degrees → metres loses only rounding. Against the
/// true geodesic the plane is off by about d²·tan φ₀ / (2R): 1.5 mm at 100 m and 6 mm at 200 m from
/// the origin at 56° N, far below a room's 10 cm tolerance for building-sized venues.
public struct GeoOrigin: Sendable, Hashable {
    /// Degrees north.
    public var latitude: Double
    /// Degrees east.
    public var longitude: Double

    static let semiMajorAxis = 6_378_137.0
    static let flattening = 1 / 298.257_223_563

    /// Metres per radian of latitude (M) and of longitude (N·cos φ₀) at the origin.
    private var metresPerRadian: (north: Double, east: Double) {
        let e2 = Self.flattening * (2 - Self.flattening)
        let phi = latitude * .pi / 180
        let w = 1 - e2 * sin(phi) * sin(phi)
        let meridional = Self.semiMajorAxis * (1 - e2) / (w * w.squareRoot())
        let primeVertical = Self.semiMajorAxis / w.squareRoot()
        return (meridional, primeVertical * cos(phi))
    }

    /// Local metres (east, north) of a WGS 84 position.
    public func project(latitude lat: Double, longitude lon: Double) -> PlanarPoint {
        let scale = metresPerRadian
        return PlanarPoint(x: (lon - longitude) * .pi / 180 * scale.east, y: (lat - latitude) * .pi / 180 * scale.north)
    }

    /// The WGS 84 position (latitude, longitude) of local metres.
    public func unproject(_ point: PlanarPoint) -> (latitude: Double, longitude: Double) {
        let scale = metresPerRadian
        return (latitude + point.y / scale.north * 180 / .pi, longitude + point.x / scale.east * 180 / .pi)
    }
}
