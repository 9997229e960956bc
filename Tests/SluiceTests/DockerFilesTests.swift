import Foundation
import Testing

/// docker/ is validated as files: no Docker engine runs on the build machines.
@Suite("docker/ files")
struct DockerFilesTests {
    static let docker = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docker")

    @Test("docker-compose config accepts the stack, with and without the publisher profile")
    func compose() throws {
        let file = DockerFilesTests.docker.appendingPathComponent("docker-compose.yml").path
        try Command.run("docker-compose", ["-f", file, "config", "-q"])
        let services = try Command.run("docker-compose", ["-f", file, "--profile", "publisher", "config", "--services"])
        #expect(Set(services.text.split(separator: "\n").map(String.init)) == ["rabbitmq", "rtmp", "worker-1", "worker-2", "publisher"])
        let resolved = try Command.run("docker-compose", ["-f", file, "config"]).text
        // The publisher only starts with its profile.
        let publisher = try #require(resolved.range(of: "  publisher:\n"))
        #expect(resolved[publisher.upperBound...].prefix(400).contains("profiles:\n    - publisher"))
        #expect(resolved.contains("consumer_timeout") == false, "the broker setting lives in rabbitmq.conf, mounted")
        #expect(resolved.contains("20-sluice.conf"))
    }

    @Test("the worker image is multi-stage, runs as a non-root user and has a health check")
    func dockerfile() throws {
        let text = try String(contentsOf: DockerFilesTests.docker.appendingPathComponent("Dockerfile"), encoding: .utf8)
        let stages = text.split(separator: "\n").filter { $0.hasPrefix("FROM ") }
        #expect(stages.count == 2)
        #expect(stages.last?.contains("debian:bookworm-slim") == true)
        #expect(text.contains("\nUSER sluice"))
        #expect(text.contains("HEALTHCHECK"))
        for library in ["libavformat59", "libavcodec59", "libswscale6", "libswresample4", "librabbitmq4", "libsqlite3-0"] {
            #expect(text.contains(library), "\(library) missing from the runtime stage")
        }
        let rabbit = try String(contentsOf: DockerFilesTests.docker.appendingPathComponent("rabbitmq.conf"), encoding: .utf8)
        #expect(rabbit.contains("consumer_timeout = 86400000"))
    }
}
