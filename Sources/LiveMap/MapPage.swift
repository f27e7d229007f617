/// The live map (`GET /`): one self-contained page, HTML, CSS and JavaScript, kept as `map.html`
/// beside this file and compiled into the binary by SwiftPM (`resources: [.embedInCode(…)]` in
/// `Package.swift`): no CDN, no build step of its own, and nothing to install beside the binary.
///
/// It draws `/api/topology` to scale in SVG (levels as tabs, each region as its beacon with its
/// radius and detection range, waypoints and links, gateways, room outlines from `areas` once the
/// topology has them), follows `/api/stream` (Server-Sent Events, see ``MapStreamEvent``) and shows
/// the selected client (`?client=ID`, or a click) from `/api/clients/{id}`. A token in `?token=`
/// is kept for the tab and sent as `Authorization: Bearer` to `fetch`, and as `?token=` to
/// `EventSource`, which cannot set headers.
///
/// For tests and tools the DOM says what it shows: every client drawn is an SVG element with
/// `data-client-id`, `data-kind`, `data-state` (`live`, `stale`, `suspended`, `absent`), `data-wake`
/// (`yes`, `no`, `unknown`: whether iOS can wake the phone, by its last report), `data-x`,
/// `data-y`; the side list has `data-list-client-id` (unplaced clients appear only there); every
/// region has `data-region-id`, and `data-monitored="true"` / `data-inside="true"` for the selected
/// client; `body` has `data-stream` (`connecting`, `open`, `error`) and `data-updates`.
public enum MapPage {
    /// The page's bytes, as `map.html` has them.
    public static let html: [UInt8] = PackageResources.map_html
}
