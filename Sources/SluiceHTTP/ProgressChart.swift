// A job's bitrate and frame rate over time, drawn server-side as inline SVG from `job_progress`.
import Foundation
import JobStore

/// One series of a chart: points of (seconds since the first sample, value).
struct ChartSeries: Equatable {
    var title: String
    var unit: String
    var points: [(t: Double, value: Double)]

    static func == (lhs: ChartSeries, rhs: ChartSeries) -> Bool {
        lhs.title == rhs.title && lhs.unit == rhs.unit && lhs.points.elementsEqual(rhs.points) { $0.t == $1.t && $0.value == $1.value }
    }

    /// Output bitrate and video frame rate per interval between consecutive samples, from the running totals
    /// (`bytes_out`, `frames`), so each point is what happened in that interval rather than the average since
    /// the start; a lone sample falls back to its stored rates.
    static func rates(from samples: [ProgressSample]) -> (bitrate: ChartSeries, fps: ChartSeries) {
        var bitrate = ChartSeries(title: "Output bitrate", unit: "kbit/s", points: [])
        var fps = ChartSeries(title: "Video frame rate", unit: "fps", points: [])
        guard let first = samples.first else { return (bitrate, fps) }
        if samples.count == 1 {
            if let value = first.bitrateKbps { bitrate.points.append((0, value)) }
            if let value = first.fps { fps.points.append((0, value)) }
            return (bitrate, fps)
        }
        for (previous, sample) in zip(samples, samples.dropFirst()) {
            let interval = sample.at.timeIntervalSince(previous.at)
            guard interval > 0 else { continue }
            let t = sample.at.timeIntervalSince(first.at)
            if let before = previous.bytesOut, let after = sample.bytesOut {
                bitrate.points.append((t, Double(max(0, after - before)) * 8 / 1000 / interval))
            }
            if let before = previous.frames, let after = sample.frames {
                fps.points.append((t, Double(max(0, after - before)) / interval))
            }
        }
        return (bitrate, fps)
    }
}

/// Renders a series as a standalone `<svg>` element: axes, grid, a line with its area, labelled extremes.
struct ProgressChart {
    static let width = 600.0
    static let height = 200.0
    static let left = 70.0, right = 16.0, top = 28.0, bottom = 30.0

    var series: ChartSeries
    /// The line colour (CSS).
    var color: String

    func svg() -> String {
        let plotWidth = Self.width - Self.left - Self.right
        let plotHeight = Self.height - Self.top - Self.bottom
        let title = HTML.escape("\(series.title) (\(series.unit))")
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 \(Int(Self.width)) \(Int(Self.height))" \
            width="\(Int(Self.width))" height="\(Int(Self.height))" role="img" aria-label="\(title)"><title>\(title)</title>
            <text x="\(Self.left)" y="16" class="chart-title">\(title)</text>

            """
        guard !series.points.isEmpty else {
            svg += "<text x=\"\(Self.left)\" y=\"\(Self.top + plotHeight / 2)\" class=\"chart-empty\">no progress samples yet</text></svg>"
            return svg
        }
        let maxValue = Self.niceCeiling(series.points.map(\.value).max() ?? 0)
        let maxT = max(series.points.map(\.t).max() ?? 0, 1)
        func x(_ t: Double) -> String { HTML.number(Self.left + t / maxT * plotWidth, digits: 1) }
        func y(_ value: Double) -> String { HTML.number(Self.top + plotHeight - value / maxValue * plotHeight, digits: 1) }

        for step in 0...4 {
            let value = maxValue * Double(step) / 4
            svg += "<line x1=\"\(Self.left)\" x2=\"\(Self.width - Self.right)\" y1=\"\(y(value))\" y2=\"\(y(value))\" class=\"grid\"/>"
            svg += "<text x=\"\(Self.left - 6)\" y=\"\(y(value))\" dy=\"4\" text-anchor=\"end\" class=\"axis\">\(HTML.number(value, digits: 1))</text>\n"
        }
        for fraction in [0.0, 0.5, 1.0] {
            let anchor = fraction == 0 ? "start" : fraction == 1 ? "end" : "middle"
            svg += "<text x=\"\(x(maxT * fraction))\" y=\"\(Self.height - 10)\" text-anchor=\"\(anchor)\" class=\"axis\">\(HTML.escape(fraction == 0 ? "0 s" : HTML.duration(maxT * fraction)))</text>\n"
        }
        let line = series.points.map { "\(x($0.t)),\(y($0.value))" }.joined(separator: " ")
        if series.points.count == 1, let point = series.points.first {
            svg += "<circle cx=\"\(x(point.t))\" cy=\"\(y(point.value))\" r=\"4\" fill=\"\(color)\"/>"
        } else {
            let firstX = x(series.points[0].t), lastX = x(series.points[series.points.count - 1].t)
            svg += "<polygon points=\"\(firstX),\(y(0)) \(line) \(lastX),\(y(0))\" fill=\"\(color)\" fill-opacity=\"0.12\"/>"
            svg += "<polyline points=\"\(line)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" stroke-linejoin=\"round\"/>"
        }
        svg += "\n</svg>"
        return svg
    }

    /// The next 1, 2 or 5 × 10ⁿ at or above `value`, so grid lines fall on round numbers.
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0, value.isFinite else { return 1 }
        let magnitude = pow(10, floor(log10(value)))
        for step in [1.0, 2.0, 5.0, 10.0] where step * magnitude >= value {
            return step * magnitude
        }
        return 10 * magnitude
    }
}
