// The read-only admin pages, rendered on the server from store records. Only redacted columns are
// shown (`spec_redacted`, redacted URLs, redacted errors), never `jobs.spec`; every value is escaped.
import Foundation
import JobStore
import Sluice
import JobDocument

/// The frame every admin page shares: styles inline, no external assets, and no scripts but the watch page's (its
/// player is the browser's WebRTC).
enum PageLayout {
    static func page(title: String, refreshSeconds: Int?, body: String) -> String {
        let refresh = refreshSeconds.map { "<meta http-equiv=\"refresh\" content=\"\($0)\">" } ?? ""
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            \(refresh)<title>\(HTML.escape(title))</title>
            <style>
            body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f2328;background:#f6f8fa}
            header{background:#24292f;color:#fff;padding:10px 24px;display:flex;gap:24px;align-items:baseline}
            header a{color:#fff;text-decoration:none;font-weight:600;font-size:16px}
            header span{color:#b6bec8;font-size:13px}
            main{padding:16px 24px;max-width:1400px}
            h1{font-size:20px;margin:8px 0 12px}h2{font-size:16px;margin:24px 0 8px}
            table{border-collapse:collapse;background:#fff;border:1px solid #d0d7de;width:100%}
            th,td{padding:6px 10px;border-bottom:1px solid #eaeef2;text-align:left;vertical-align:top}
            th{background:#f0f3f6;font-weight:600;font-size:12px;text-transform:uppercase;letter-spacing:.03em;color:#57606a}
            td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
            td.error{color:#a40e26;max-width:520px;overflow-wrap:anywhere}
            a{color:#0969da}
            .state{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;color:#fff;background:#6e7781}
            .state-succeeded{background:#1a7f37}.state-failed{background:#cf222e}.state-running{background:#0969da}
            .state-retrying{background:#bc4c00}.state-rejected{background:#8250df}.state-cancelled{background:#6e7781}
            .state-received{background:#57606a}.state-reconnecting{background:#bc4c00}.state-pending{background:#8c959f}
            .counts{display:flex;gap:8px;flex-wrap:wrap;margin-bottom:12px}
            .counts a{text-decoration:none;border:1px solid #d0d7de;background:#fff;border-radius:6px;padding:4px 10px;color:#1f2328}
            .counts a.active{border-color:#0969da;box-shadow:0 0 0 1px #0969da}
            dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;background:#fff;border:1px solid #d0d7de;padding:12px 16px;margin:0}
            dt{color:#57606a}dd{margin:0;overflow-wrap:anywhere}
            pre{background:#fff;border:1px solid #d0d7de;padding:12px;overflow:auto;font-size:12px}
            .charts{display:flex;flex-wrap:wrap;gap:12px}
            svg.chart{background:#fff;border:1px solid #d0d7de;max-width:100%;height:auto}
            svg .grid{stroke:#eaeef2;stroke-width:1}svg .axis{fill:#57606a;font-size:11px}
            svg .chart-title{fill:#1f2328;font-size:13px;font-weight:600}svg .chart-empty{fill:#8c959f;font-size:13px}
            .muted{color:#8c959f}
            </style></head>
            <body><header><a href="/">Sluice</a><span>read-only admin · <a href="/metrics" style="font-size:13px;font-weight:400">metrics</a> · <a href="/healthz" style="font-size:13px;font-weight:400">health</a></span></header>
            <main>
            \(body)
            </main></body></html>

            """
    }

    static func state(_ state: String) -> String {
        "<span class=\"state state-\(HTML.escape(state))\">\(HTML.escape(state))</span>"
    }

    static func jobLink(_ id: String) -> String {
        "<a href=\"/jobs/\(HTML.escape(HTML.pathSegment(id)))\">\(HTML.escape(id))</a>"
    }
}

/// `/`: the most recent jobs, newest first, with their state, attempts, age, duration, outputs and error.
struct JobListPage {
    var jobs: [JobRecord]
    var tallies: [String: OutputTally]
    var counts: [JobState: Int]
    /// The state the list is filtered to, if any.
    var filter: JobState?
    var limit: Int
    var now: Date
    /// This worker's slots by class (empty when the server has no worker metrics, e.g. in tests of the list).
    var slots: [SlotUsage] = []

    /// Errors are cut here in the list (the job page shows them whole).
    static let errorPreview = 240

    func html() -> String {
        var body = ""
        if !slots.isEmpty {
            body += "<h1>Slots</h1>\n<table class=\"slots\"><thead><tr><th>Class</th><th class=\"num\">Running</th>"
            body += "<th class=\"num\">Slots</th><th class=\"num\">Free</th></tr></thead><tbody>\n"
            for slot in slots {
                // The encode class counts 720p30-equivalents, not jobs.
                let name = slot.jobClass == .encode ? "encode (720p30 units)" : slot.jobClass.rawValue
                body += "<tr class=\"slot\" data-class=\"\(HTML.escape(slot.jobClass.rawValue))\"><td>\(HTML.escape(name))</td>"
                body += "<td class=\"num\">\(slot.busy)</td><td class=\"num\">\(slot.capacity)</td>"
                body += "<td class=\"num\">\(max(0, slot.capacity - slot.busy))</td></tr>\n"
            }
            body += "</tbody></table>\n"
        }
        body += "<h1>Recent jobs</h1>\n<div class=\"counts\">"
        let total = counts.values.reduce(0, +)
        body += "<a href=\"/\"\(filter == nil ? " class=\"active\"" : "")>all <b>\(total)</b></a>"
        for state in JobState.allCases where (counts[state] ?? 0) > 0 || state == filter {
            let active = state == filter ? " class=\"active\"" : ""
            body += "<a href=\"/?state=\(state.rawValue)\"\(active)>\(PageLayout.state(state.rawValue)) <b>\(counts[state] ?? 0)</b></a>"
        }
        body += "</div>\n"
        guard !jobs.isEmpty else {
            body += "<p class=\"muted\">No jobs\(filter.map { " in state \($0.rawValue)" } ?? "") yet.</p>"
            return PageLayout.page(title: "Sluice jobs", refreshSeconds: 10, body: body)
        }
        body += """
            <table><thead><tr><th>Job</th><th>State</th><th class="num">Attempts</th><th class="num">Age</th>\
            <th class="num">Duration</th><th class="num">Outputs ok</th><th>Worker</th><th>Error</th></tr></thead><tbody>

            """
        for job in jobs {
            let attempts = job.maxAttempts.map { "\(job.attempts) / \($0)" } ?? "\(job.attempts)"
            let tally = tallies[job.id].map { "\($0.succeeded) / \($0.total)" } ?? "–"
            var error = job.error ?? ""
            if error.count > Self.errorPreview { error = String(error.prefix(Self.errorPreview)) + "…" }
            body += "<tr class=\"job\" data-job=\"\(HTML.escape(job.id))\"><td>\(PageLayout.jobLink(job.id))</td>"
            body += "<td>\(PageLayout.state(job.state.rawValue))</td><td class=\"num\">\(attempts)</td>"
            body += "<td class=\"num\" title=\"\(HTML.time(job.createdAt))\">\(HTML.escape(HTML.duration(now.timeIntervalSince(job.createdAt))))</td>"
            body += "<td class=\"num\">\(HTML.escape(Self.duration(of: job, now: now)))</td><td class=\"num\">\(tally)</td>"
            body += "<td>\(HTML.escape(job.workerID ?? ""))</td><td class=\"error\">\(HTML.escape(error))</td></tr>\n"
        }
        body += "</tbody></table>\n<p class=\"muted\">The \(jobs.count) most recent (at most \(limit)); refreshes every 10 s.</p>"
        return PageLayout.page(title: "Sluice jobs", refreshSeconds: 10, body: body)
    }

    /// The last attempt's run time; a running job counts up to now.
    static func duration(of job: JobRecord, now: Date) -> String {
        if let duration = job.duration { return HTML.duration(duration) }
        if job.state == .running, let started = job.startedAt { return HTML.duration(now.timeIntervalSince(started)) }
        return "–"
    }
}

/// `/jobs/ID`: one job's record, outputs, bitrate and frame-rate charts, events and redacted spec.
struct JobDetailPage {
    var job: JobRecord
    var outputs: [OutputRecord]
    var events: [EventRecord]
    var eventLimit: Int
    var samples: [ProgressSample]
    var now: Date

    func html() -> String {
        var body = "<h1>Job \(HTML.escape(job.id)) \(PageLayout.state(job.state.rawValue))</h1>\n<dl>"
        func row(_ name: String, _ value: String?) {
            guard let value, !value.isEmpty else { return }
            body += "<dt>\(name)</dt><dd>\(HTML.escape(value))</dd>"
        }
        row("Attempts", job.maxAttempts.map { "\(job.attempts) of \($0)" } ?? "\(job.attempts)")
        row("Worker", job.workerID)
        row("Input", job.input)
        row("Encoder", job.encoder)
        row("Priority", job.priority.map(String.init))
        row("Created", HTML.time(job.createdAt) + " (\(HTML.duration(now.timeIntervalSince(job.createdAt))) ago)")
        row("Started", job.startedAt.map(HTML.time))
        row("Finished", job.finishedAt.map(HTML.time))
        row("Duration", JobListPage.duration(of: job, now: now))
        row("Media time", job.mediaTimeSeconds.map { HTML.duration($0) })
        row("Video frames", job.frames.map(String.init))
        row("Bytes in / out", job.bytesIn.map { input in "\(HTML.bytes(input)) / \(HTML.bytes(job.bytesOut ?? 0))" })
        row("Speed", job.speed.map { HTML.number($0) + "×" })
        row("Timestamps repaired", job.dtsRepairs.flatMap { $0 > 0 ? String($0) : nil })
        body += "</dl>\n"
        if let error = job.error {
            body += "<h2>Error</h2><pre class=\"error\">\(HTML.escape(error))</pre>\n"
        }

        body += "<h2>Outputs</h2>\n"
        if outputs.isEmpty {
            body += "<p class=\"muted\">No outputs recorded.</p>\n"
        } else {
            // SRT outputs add their link: round trip, rate, loss, retransmissions and late drops.
            let showsLinks = outputs.contains { $0.srt != nil }
            body += """
                <table><thead><tr><th class="num">#</th><th>Destination</th><th>Format</th><th>State</th><th class="num">Bytes</th>\
                <th class="num">Frames</th><th class="num">Drops</th><th class="num">Reconnects</th>\(showsLinks ? "<th>SRT link</th>" : "")\
                <th>Last error</th></tr></thead><tbody>

                """
            for output in outputs {
                // A running job's WHEP output is played on a page of its own.
                let watch = WatchPage.offered(for: output, of: job)
                    ? " <a class=\"watch\" href=\"\(HTML.escape(WatchPage.path(job: job.id, index: output.index)))\">watch</a>" : ""
                body += "<tr><td class=\"num\">\(output.index)</td><td>\(HTML.escape(output.url))\(watch)</td><td>\(HTML.escape(output.format ?? ""))</td>"
                body += "<td>\(PageLayout.state(output.state.rawValue))</td><td class=\"num\" title=\"\(output.bytes) bytes\">\(HTML.bytes(output.bytes))</td>"
                body += "<td class=\"num\">\(output.frames)</td><td class=\"num\">\(output.drops)</td><td class=\"num\">\(output.reconnects)</td>"
                if showsLinks { body += "<td class=\"srt-link\">\(HTML.escape(output.srt?.summary ?? ""))</td>" }
                body += "<td class=\"error\">\(HTML.escape(output.lastError ?? ""))</td></tr>\n"
            }
            body += "</tbody></table>\n"
        }

        body += "<h2>Progress</h2>\n<div class=\"charts\">"
        let series = ChartSeries.rates(from: samples)
        body += ProgressChart(series: series.bitrate, color: "#0969da").svg()
        body += ProgressChart(series: series.fps, color: "#1a7f37").svg()
        body += "</div>\n"

        body += "<h2>Events</h2>\n"
        if events.count >= eventLimit { body += "<p class=\"muted\">The newest \(eventLimit) events.</p>" }
        body += """
            <table><thead><tr><th>Time</th><th>Event</th><th>State</th><th class="num">Attempt</th><th>Worker</th><th>Message</th></tr></thead><tbody>

            """
        for event in events {
            body += "<tr><td style=\"white-space:nowrap\">\(HTML.time(event.at))</td><td>\(HTML.escape(event.kind.rawValue))</td>"
            body += "<td>\(event.state.map { PageLayout.state($0.rawValue) } ?? "")</td><td class=\"num\">\(event.attempt)</td>"
            body += "<td>\(HTML.escape(event.workerID ?? ""))</td><td>\(HTML.escape(event.message ?? ""))</td></tr>\n"
        }
        body += "</tbody></table>\n"

        if let spec = job.specRedacted {
            body += "<h2>Spec (redacted)</h2><pre>\(HTML.escape(Self.pretty(spec)))</pre>\n"
        }
        let refresh = [.running, .retrying, .received].contains(job.state) ? 5 : nil
        return PageLayout.page(title: "Sluice job \(job.id)", refreshSeconds: refresh, body: body)
    }

    /// The stored JSON indented for reading; stored text that does not parse is shown as it is.
    static func pretty(_ json: String) -> String {
        guard let value = try? JSONValue.parse(Data(json.utf8)) else { return json }
        return value.jsonText(pretty: true)
    }
}

/// `/jobs/ID` for an id the store does not know, and `/jobs/ID/watch/N` for an output that is not a WHEP output.
enum NotFoundPage {
    static func html(id: String) -> String {
        PageLayout.page(title: "No such job", refreshSeconds: nil,
                        body: "<h1>No job with id <code>\(HTML.escape(id))</code></h1><p><a href=\"/\">All jobs</a></p>")
    }

    static func html(id: String, output index: Int) -> String {
        PageLayout.page(title: "No WHEP output", refreshSeconds: nil,
                        body: "<h1>Job <code>\(HTML.escape(id))</code> has no WHEP output \(index)</h1><p>\(PageLayout.jobLink(id))</p>")
    }
}
