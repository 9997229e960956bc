/// A Prometheus text exposition as `series → value`, where a series is the name with its labels as printed
/// (`sluice_jobs_total{state="succeeded"}`).
func samples(_ exposition: String) -> [String: Double] {
    var values: [String: Double] = [:]
    for line in exposition.split(separator: "\n") where !line.hasPrefix("#") {
        guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
        values[String(line[..<space])] = value
    }
    return values
}
