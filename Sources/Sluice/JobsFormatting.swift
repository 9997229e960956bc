import Foundation
import JobStore
import MediaEngine
import MediaJob
import JobDocument

/// How `sluice jobs …` shows records: an aligned table, JSON rows, and a detail page. Everything shown
/// comes from the store, where URLs are already redacted.
public enum JobsFormatting {
    /// `2026-11-23T17:34:00.123Z`, in UTC, the milliseconds truncated. The worker stamps every log line and
    /// progress event with it, so it is formatted by hand from `gmtime_r`: a Foundation format style builds a calendar
    /// on first use, which loads ICU's time-zone data (0.6 MiB of pages, and ICU's code) into a worker that needs
    /// neither; an `ISO8601DateFormatter` per call was a visible share of a busy worker's CPU.
    static func iso(_ date: Date?) -> String {
        guard let date else { return "" }
        // The second floored (an instant before 1970 keeps a positive fraction), and its fraction truncated to
        // nanoseconds and then milliseconds, as Foundation's calendar does.
        let interval = date.timeIntervalSince1970
        let whole = interval.rounded(.down)
        guard let wholeSeconds = Int64(exactly: whole) else { return "" }
        let milliseconds = Int32(Int64((interval - whole) * 1e9) / 1_000_000)
        var seconds = time_t(wholeSeconds)
        var fields = tm()
        guard gmtime_r(&seconds, &fields) != nil else { return "" }
        var text = ""
        text.reserveCapacity(24)
        func append(_ value: Int32, digits: Int, then separator: Character?) {
            let number = String(value)
            text += String(repeating: "0", count: max(0, digits - number.count)) + number
            if let separator { text.append(separator) }
        }
        append(fields.tm_year + 1900, digits: 4, then: "-")
        append(fields.tm_mon + 1, digits: 2, then: "-")
        append(fields.tm_mday, digits: 2, then: "T")
        append(fields.tm_hour, digits: 2, then: ":")
        append(fields.tm_min, digits: 2, then: ":")
        append(fields.tm_sec, digits: 2, then: ".")
        append(milliseconds, digits: 3, then: "Z")
        return text
    }

    /// Parses `2026-11-21T05:00:00Z`, with or without fractional seconds, or a bare date.
    public static func parseTime(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime], [.withFullDate]] {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    /// `42s`, `3m05s`, `2h01m`.
    public static func duration(_ seconds: TimeInterval?) -> String {
        guard let seconds, seconds >= 0 else { return "" }
        if seconds < 10 { return String(format: "%.1fs", seconds) }
        let whole = ClockConversion.clamped(seconds.rounded(), as: Int.self)
        if whole < 60 { return "\(whole)s" }
        if whole < 3600 { return String(format: "%dm%02ds", whole / 60, whole % 60) }
        if whole < 86_400 { return String(format: "%dh%02dm", whole / 3600, (whole % 3600) / 60) }
        return String(format: "%dd%02dh", whole / 86_400, (whole % 86_400) / 3600)
    }

    static func outputsOK(_ outputs: [OutputRecord]) -> String {
        "\(outputs.filter { $0.state == .succeeded }.count)/\(outputs.count)"
    }

    /// One output in `summary`: its counters, and an SRT output's link once measured.
    static func outputSummary(_ output: OutputRecord) -> JSONValue {
        var fields: [String: JSONValue] = [
            "index": .number(Double(output.index)),
            "url": .string(output.url),
            "format": output.format.map(JSONValue.string) ?? .null,
            "state": .string(output.state.rawValue),
            "bytes": .number(Double(output.bytes)),
            "frames": .number(Double(output.frames)),
            "drops": .number(Double(output.drops)),
            "reconnects": .number(Double(output.reconnects)),
            "last_error": output.lastError.map(JSONValue.string) ?? .null,
        ]
        if let link = output.srt {
            fields["srt"] = .object([
                "rtt_ms": .number(link.roundTripMilliseconds),
                "send_mbps": .number(link.sendMegabitsPerSecond),
                "packets_sent": .number(Double(link.packetsSent)),
                "packets_lost": .number(Double(link.packetsLost)),
                "packets_retransmitted": .number(Double(link.packetsRetransmitted)),
                "packets_dropped": .number(Double(link.packetsDropped)),
            ])
        }
        return .object(fields)
    }

    /// One job as a JSON object (`jobs list --json`, `jobs show --json`).
    public static func summary(_ job: JobRecord, outputs: [OutputRecord], now: Date = Date()) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(job.id),
            "state": .string(job.state.rawValue),
            "attempts": .number(Double(job.attempts)),
            "created_at": .string(iso(job.createdAt)),
            "updated_at": .string(iso(job.updatedAt)),
            "age_s": .number((now.timeIntervalSince(job.createdAt) * 10).rounded() / 10),
            "outputs": .array(outputs.map(outputSummary)),
        ]
        let optional: [(String, JSONValue?)] = [
            ("input", job.input.map(JSONValue.string)),
            ("worker_id", job.workerID.map(JSONValue.string)),
            ("encoder", job.encoder.map(JSONValue.string)),
            ("error", job.error.map(JSONValue.string)),
            ("started_at", job.startedAt.map { .string(iso($0)) }),
            ("finished_at", job.finishedAt.map { .string(iso($0)) }),
            ("duration_s", job.duration.map { .number(($0 * 1000).rounded() / 1000) }),
            ("media_time_s", job.mediaTimeSeconds.map(JSONValue.number)),
            ("frames", job.frames.map { .number(Double($0)) }),
            ("bytes_in", job.bytesIn.map { .number(Double($0)) }),
            ("bytes_out", job.bytesOut.map { .number(Double($0)) }),
            ("dts_repairs", job.dtsRepairs.map { .number(Double($0)) }),
        ]
        for (key, value) in optional { fields[key] = value ?? .null }
        return .object(fields)
    }

    public static func event(_ event: EventRecord) -> JSONValue {
        .object([
            "at": .string(iso(event.at)),
            "kind": .string(event.kind.rawValue),
            "state": event.state.map { .string($0.rawValue) } ?? .null,
            "attempt": .number(Double(event.attempt)),
            "worker_id": event.workerID.map(JSONValue.string) ?? .null,
            "message": event.message.map(JSONValue.string) ?? .null,
        ])
    }

    public static func eventLine(_ event: EventRecord) -> String {
        var line = "\(iso(event.at))  \(event.kind.rawValue)  attempt \(event.attempt)"
        if let worker = event.workerID { line += "  \(worker)" }
        if let message = event.message { line += "  \(message)" }
        return line
    }

    /// The aligned table of `jobs list`.
    public static func table(_ jobs: [JobRecord], outputs: [String: [OutputRecord]], now: Date = Date()) -> String {
        let header = ["ID", "STATE", "WORKER", "ATTEMPTS", "AGE", "DURATION", "ENCODER", "OUTPUTS", "ERROR"]
        var rows = [header]
        for job in jobs {
            rows.append([
                job.id, job.state.rawValue, job.workerID ?? "-", String(job.attempts),
                duration(now.timeIntervalSince(job.createdAt)), duration(job.duration),
                job.encoder ?? "-", outputsOK(outputs[job.id] ?? []),
                oneLine(job.error ?? ""),
            ])
        }
        return align(rows)
    }

    static func oneLine(_ text: String, limit: Int = 100) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: " ")
        return flat.count > limit ? String(flat.prefix(limit - 1)) + "…" : flat
    }

    static func align(_ rows: [[String]]) -> String {
        guard let columns = rows.first?.count else { return "" }
        var widths = Array(repeating: 0, count: columns)
        for row in rows { for (i, cell) in row.enumerated() where i < columns - 1 { widths[i] = max(widths[i], cell.count) } }
        return rows.map { row in
            row.enumerated().map { i, cell in
                i < columns - 1 ? cell.padding(toLength: widths[i], withPad: " ", startingAt: 0) : cell
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }

    /// The page of `jobs show`.
    public static func detail(_ job: JobRecord, outputs: [OutputRecord], events: [EventRecord], segments: [SegmentRecord] = []) -> String {
        var lines: [String] = []
        func add(_ key: String, _ value: String?) {
            if let value, !value.isEmpty { lines.append("\(key.padding(toLength: 12, withPad: " ", startingAt: 0)) \(value)") }
        }
        add("id", job.id)
        add("state", job.state.rawValue)
        add("attempts", "\(job.attempts)\(job.maxAttempts.map { " of \($0)" } ?? "")")
        add("input", job.input)
        add("worker", job.workerID)
        add("encoder", job.encoder)
        add("created", iso(job.createdAt))
        add("started", iso(job.startedAt))
        add("finished", iso(job.finishedAt))
        add("duration", duration(job.duration))
        if let media = job.mediaTimeSeconds {
            add("progress", String(format: "%.2f s media, %d frames, %lld bytes in, %lld bytes out, %d timestamps repaired",
                                   media, job.frames ?? 0, job.bytesIn ?? 0, job.bytesOut ?? 0, job.dtsRepairs ?? 0))
        }
        add("error", job.error)
        lines.append("")
        lines.append("outputs:")
        var rows = [["#", "URL", "FORMAT", "STATE", "BYTES", "FRAMES", "DROPS", "RECONNECTS", "LAST ERROR"]]
        for output in outputs {
            rows.append([String(output.index), output.url, output.format ?? "", output.state.rawValue, String(output.bytes),
                         String(output.frames), String(output.drops), String(output.reconnects), oneLine(output.lastError ?? "")])
        }
        lines.append(align(rows).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        let links = outputs.compactMap { output in output.srt.map { (output.index, $0) } }
        if !links.isEmpty {
            lines.append("")
            lines.append("srt links:")
            for (index, link) in links { lines.append("  #\(index): \(link.summary)") }
        }
        if !segments.isEmpty {
            lines.append("")
            lines.append("segments:")
            lines.append(segmentTable(segments).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        }
        if let spec = job.specRedacted, let value = try? JSONValue.parse(Data(spec.utf8)) {
            lines.append("")
            lines.append("spec:")
            lines.append(value.jsonText(pretty: true).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        }
        lines.append("")
        lines.append("events:")
        for event in events { lines.append("  " + eventLine(event)) }
        return lines.joined(separator: "\n")
    }

    /// A recording's segments: one line each, open ones (being written) and removed ones (by `retain`) marked.
    static func segmentTable(_ segments: [SegmentRecord]) -> String {
        var rows = [["#", "START", "DURATION", "BYTES", "STATE", "PATH"]]
        for segment in segments {
            let state = segment.removedAt != nil ? "removed" : segment.closedAt != nil ? "closed" : "open"
            rows.append([String(segment.index), iso(segment.startAt), segment.durationSeconds.map { String(format: "%.3f s", $0) } ?? "-",
                         segment.bytes.map { String($0) } ?? "-", state, segment.path])
        }
        return align(rows)
    }
}
