import Foundation
import Testing

/// docker/ as files (the images and the running stack are tested by scripts/stack-e2e).
@Suite("docker/ files")
struct DockerFilesTests {
    static let docker = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docker")

    @Test("docker-compose config accepts the stack, with and without the publisher profile")
    func compose() throws {
        let file = DockerFilesTests.docker.appendingPathComponent("docker-compose.yml").path
        try Command.run("docker-compose", ["-f", file, "config", "-q"])
        let services = try Command.run("docker-compose", ["-f", file, "--profile", "publisher", "config", "--services"])
        #expect(Set(services.text.split(separator: "\n").map(String.init)) == ["rabbitmq", "rtmp", "worker-1", "worker-2", "ledger", "publisher"])
        let resolved = try Command.run("docker-compose", ["-f", file, "config"]).text
        // The publisher only starts with its profile.
        let publisher = try #require(resolved.range(of: "  publisher:\n"))
        #expect(resolved[publisher.upperBound...].prefix(400).contains("profiles:\n    - publisher"))
        #expect(resolved.contains("consumer_timeout") == false, "the broker setting lives in rabbitmq.conf, mounted")
        #expect(resolved.contains("20-sluice.conf"))
        // Registry users get the official images by default.
        #expect(resolved.contains("image: rabbitmq:3-management"))
        #expect(resolved.contains("SWIFT_IMAGE: swift:6.3-bookworm") && resolved.contains("RUNTIME_IMAGE: debian:bookworm-slim"))
        // Workers drain on SIGTERM for SLUICE_GRACE_S (30 s): the engine must not SIGKILL them before (default 10 s).
        #expect(resolved.components(separatedBy: "SLUICE_GRACE_S: '30'").count - 1 == 2)
        #expect(resolved.components(separatedBy: "stop_grace_period: 45s").count - 1 == 2)
        #expect(resolved.contains("command:\n    - ledger"))
    }

    @Test("the offline override swaps every base for an image built from Debian's packages, and keeps the ports")
    func offlineOverride() throws {
        let base = DockerFilesTests.docker.appendingPathComponent("docker-compose.yml").path
        let offline = DockerFilesTests.docker.appendingPathComponent("docker-compose.offline.yml").path
        let resolved = try Command.run("docker-compose", ["-f", base, "-f", offline, "config"]).text
        #expect(!resolved.contains("rabbitmq:3-management"))
        #expect(!resolved.contains("swift:6.3-bookworm") && !resolved.contains("debian:bookworm-slim"))
        #expect(resolved.contains("image: localhost/sluice-rabbitmq:bookworm"))
        #expect(resolved.components(separatedBy: "image: localhost/sluice:latest").count - 1 == 3)
        for port in ["5672", "15672", "1935", "9091", "9092", "9093"] {
            #expect(resolved.contains("127.0.0.1:\(port):"), "port \(port)")
        }
    }

    @Test("the worker image is multi-stage, runs as a non-root user and has a health check")
    func dockerfile() throws {
        let text = try String(contentsOf: DockerFilesTests.docker.appendingPathComponent("Dockerfile"), encoding: .utf8)
        let stages = text.split(separator: "\n").filter { $0.hasPrefix("FROM ") }
        // The binary built from source (the default target, last) or handed over prebuilt (--target prebuilt), both on
        // one runtime stage. Every stage a FROM names is named literally: bookworm's buildah cannot resolve an ARG that
        // names a stage whose own FROM is an ARG.
        #expect(stages == ["FROM ${SWIFT_IMAGE} AS build", "FROM ${RUNTIME_IMAGE} AS runtime", "FROM runtime AS prebuilt",
                           "FROM runtime AS source"])
        #expect(text.contains("COPY --from=build /out/ /usr/local/"))
        #expect(text.contains("COPY prebuilt/ /usr/local/"))
        // SwiftPM's build folder outlives the layers, so a changed file does not rebuild the package from nothing.
        #expect(text.contains("RUN --mount=type=cache,id=sluice-release-build,target=/cache"))
        // Each variant ends as the unprivileged user.
        #expect(text.components(separatedBy: "\nUSER sluice\n").count - 1 == 2)
        #expect(text.contains("ARG RUNTIME_IMAGE=debian:bookworm-slim") && text.contains("ARG SWIFT_IMAGE=swift:6.3-bookworm"))
        #expect(text.contains("HEALTHCHECK"))
        // libav and libsrt are opened on first use, not linked: nothing but this list puts them in the image.
        for library in ["libavformat59", "libavcodec59", "libavutil57", "libswscale6", "libswresample4", "libsrt1.5-gnutls",
                        "librabbitmq4", "libsqlite3-0"] {
            #expect(text.contains(library), "\(library) missing from the runtime stage")
        }
        // The build stage has every header package the machine's build has (scripts/bootstrap): libsrt's was missing
        // once, and only a from-source image build, which CI does not run, showed it.
        let build = text.components(separatedBy: "FROM ${SWIFT_IMAGE} AS build").last?.components(separatedBy: "\nFROM ").first ?? ""
        let bootstrap = try String(contentsOf: DockerFilesTests.docker.deletingLastPathComponent().appendingPathComponent("scripts/bootstrap"),
                                   encoding: .utf8)
        let headers = Set(bootstrap.split(whereSeparator: { $0 == " " || $0 == "\n" }).filter { $0.hasPrefix("lib") && $0.hasSuffix("-dev") })
        #expect(headers.count >= 8, "\(headers)")
        for package in headers.sorted() {
            #expect(build.contains(" \(package)"), "\(package) missing from the build stage")
        }
        let rabbit = try String(contentsOf: DockerFilesTests.docker.appendingPathComponent("rabbitmq.conf"), encoding: .utf8)
        #expect(rabbit.contains("consumer_timeout = 86400000"))
    }
}
