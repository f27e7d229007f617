import Foundation

/// The soak's samples written out: a CSV of every 10-second sample and an SVG of four small panels
/// over minutes (resident set; report → regions p50 and p99 per minute; shed sightings batches in
/// all; lost reports per minute), hand-written so the benchmark needs no plotting library.
enum SoakPlot {
    static func csv(_ samples: [SoakSample]) -> String {
        var text = "seconds,rss_mib,answers,p50_ms,p99_ms,lost,shed_batches_total,clients\n"
        for s in samples {
            text += String(
                format: "%.0f,%.2f,%d,%.3f,%.3f,%d,%.0f,%.0f\n", s.seconds, s.residentMiB, s.latencies.count,
                percentile(s.latencies, 0.5) * 1000, percentile(s.latencies, 0.99) * 1000, s.lost, s.shedTotal, s.clients)
        }
        return text
    }

    /// One series of a panel: its points (x in minutes) and colour.
    struct Series {
        var name: String
        var points: [(x: Double, y: Double)]
        var colour: String
    }

    static func svg(_ samples: [SoakSample], minutes: [SoakMinute], title: String) -> String {
        let rss = Series(name: "RSS (MiB)", points: samples.map { ($0.seconds / 60, $0.residentMiB) }, colour: "#1f77b4")
        let p50 = Series(name: "p50", points: minutes.map { (Double($0.index + 1), $0.p50) }, colour: "#2ca02c")
        let p99 = Series(name: "p99", points: minutes.map { (Double($0.index + 1), $0.p99) }, colour: "#d62728")
        let shed = Series(name: "shed batches (in all)", points: samples.map { ($0.seconds / 60, $0.shedTotal) }, colour: "#9467bd")
        let lost = Series(name: "lost reports", points: minutes.map { (Double($0.index + 1), Double($0.lost)) }, colour: "#ff7f0e")
        let width = 900.0
        let height = 620.0
        let span = max(1, (samples.last?.seconds ?? 60) / 60)
        var body = ""
        let panels: [(String, [Series], Double?)] = [
            ("Coordinator resident set (MiB), every 10 s", [rss], nil),
            ("Report → regions latency (ms), per minute; target p99 ≤ 10", [p50, p99], 10),
            ("Shed sightings batches, in all", [shed], nil),
            ("Lost reports (no answer within 10 s), per minute", [lost], nil),
        ]
        for (i, (name, series, target)) in panels.enumerated() {
            let x0 = 60 + Double(i % 2) * (width / 2)
            let y0 = 50 + Double(i / 2) * ((height - 50) / 2)
            body += panel(name, series, target: target, x: x0, y: y0, width: width / 2 - 80, height: (height - 50) / 2 - 70, span: span)
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(width / 2)" y="22" text-anchor="middle" font-size="14">\(escape(title))</text>
            \(body)</svg>

            """
    }

    /// A panel at (`x`, `y`) of `width` × `height`: axes from 0 to `span` minutes and 0 to the
    /// largest value (or the target, if larger), each series a polyline with dots, a dashed target line.
    static func panel(
        _ title: String, _ series: [Series], target: Double?, x: Double, y: Double, width: Double, height: Double, span: Double
    ) -> String {
        let values = series.flatMap { $0.points.map(\.y) }.filter(\.isFinite)
        // At least 1: a panel of zeros (no shed batch, no lost report) reads 0 of 1, not 0 of 1e-9.
        let top = niceCeiling(max((values.max() ?? 0) * 1.1, (target ?? 0) * 1.1, 1))
        func px(_ minute: Double) -> Double { x + minute / span * width }
        func py(_ value: Double) -> Double { y + height - value / top * height }
        var text = "<text x=\"\(x)\" y=\"\(y - 8)\" font-size=\"12\">\(escape(title))</text>\n"
        text += "<rect x=\"\(x)\" y=\"\(y)\" width=\"\(width)\" height=\"\(height)\" fill=\"none\" stroke=\"#999\"/>\n"
        for tick in 0...4 {
            let value = top * Double(tick) / 4
            text += "<text x=\"\(x - 4)\" y=\"\(py(value) + 4)\" text-anchor=\"end\">\(format(value))</text>\n"
            if tick > 0 { text += "<line x1=\"\(x)\" y1=\"\(py(value))\" x2=\"\(x + width)\" y2=\"\(py(value))\" stroke=\"#eee\"/>\n" }
        }
        let step = max(1, Int((span / 5).rounded(.up)))
        for minute in stride(from: 0, through: Int(span.rounded(.down)), by: step) {
            text += "<text x=\"\(px(Double(minute)))\" y=\"\(y + height + 14)\" text-anchor=\"middle\">\(minute)</text>\n"
        }
        text += "<text x=\"\(x + width / 2)\" y=\"\(y + height + 28)\" text-anchor=\"middle\" fill=\"#666\">minutes</text>\n"
        if let target {
            text +=
                "<line x1=\"\(x)\" y1=\"\(py(target))\" x2=\"\(x + width)\" y2=\"\(py(target))\" stroke=\"#d62728\" stroke-dasharray=\"4 3\"/>\n"
        }
        for (k, s) in series.enumerated() {
            let points = s.points.filter { $0.y.isFinite }
            let path = points.map { String(format: "%.1f,%.1f", px($0.x), py($0.y)) }.joined(separator: " ")
            text += "<polyline points=\"\(path)\" fill=\"none\" stroke=\"\(s.colour)\" stroke-width=\"1.5\"/>\n"
            for p in points {
                text += String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"%@\"/>\n", px(p.x), py(p.y), s.colour)
            }
            text +=
                "<text x=\"\(x + width - 4)\" y=\"\(y + 14 + Double(k) * 13)\" text-anchor=\"end\" fill=\"\(s.colour)\">\(escape(s.name))</text>\n"
        }
        return text
    }

    /// 1, 2, 2.5 or 5 times a power of ten, at least `value`.
    static func niceCeiling(_ value: Double) -> Double {
        let power = pow(10, (log10(value)).rounded(.down))
        for factor in [1.0, 2, 2.5, 5, 10] where factor * power >= value { return factor * power }
        return 10 * power
    }

    static func format(_ value: Double) -> String {
        value >= 100 || value == value.rounded() ? String(format: "%.0f", value) : String(format: "%.2g", value)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(
            of: ">", with: "&gt;")
    }
}
