import Foundation
import MediaJob
import Testing
@testable import LiveRelay
import NIOConcurrencyHelpers

extension LiveRelayTests {
    /// rtmps:// listen jobs: the engine terminates TLS with the worker's certificate (a private CA made with openssl per
    /// run), ffmpeg publishes over TLS and verifies it, and the FLV archive is the framemd5 referee. Needs no nginx.
    /// Nested in the serialized nginx suite (so enabled where it is), so its publishers never share 2 cores with that
    /// suite's timed players.
    @Suite("RTMPS ingest")
    struct RTMPSIngestTests {
        /// An engine serving `files`, and a listen job on `url` archiving to `root/out/archive.flv`.
        private static func listen(_ engine: RelayEngine, _ url: String, root: String, timeout: Double) -> RunningJob {
            var options = Live.options(input: url, listen: true, outputs: [], timeout: timeout)
            options.outputs = [OutputDescription(target: .file(path: root + "/out/archive.flv"), kind: .flv, name: "archive.flv")]
            options.fileRoots = FileRoots(input: root, output: root)
            return RunningJob(engine, options)
        }

        /// ffmpeg publishing `file` over TLS to `url`, verifying the server against `ca`.
        private static func publishTLS(_ file: String, to url: String, ca: String) throws -> Child {
            try Live.publish(file, to: url, extra: ["-tls_verify", "1", "-ca_file", ca])
        }

        /// Cancels `job` once it has received every frame of `source` (a cancelled job keeps its archive).
        private static func cancelWhenAllArrived(_ job: RunningJob, of source: String) throws {
            let video = try Live.frames(source, "v").count
            let audio = try Live.frames(source, "a").count
            let arrived = Live.wait(seconds: 10) {
                guard let progress = job.latestProgress else { return false }
                return progress.videoFrames >= video && progress.audioFrames >= audio
            }
            #expect(arrived, "received \(String(describing: job.latestProgress))")
            job.interrupter.cancel()
        }

        /// The archive holds exactly the published frames, video and audio.
        private static func expectWholeArchive(_ archive: String, of source: String) throws {
            let archived = try Live.frames(archive, "v")
            let published = try Live.frames(source, "v")
            #expect(archived.count == published.count, "archived \(archived.count) of \(published.count) video frames")
            #expect(archived == published, "the archived video frames are not the published ones")
            let archivedAudio = try Live.frames(archive, "a")
            #expect(archivedAudio == (try Live.frames(source, "a")), "the archived audio frames are not the published ones")
        }

        @Test("ffmpeg publishing over TLS (verifying our certificate) into an rtmps:// listen job is archived frame for frame")
        func archivesFrameForFrame() throws {
            let folder = Live.scratch("rtmps-archive")
            let certificate = try TestCertificate.make(in: folder, name: "archive")
            let engine = RelayEngine(RelaySettings(threads: 1, rtmpsCAFile: nil,
                                    ingestCertificate: IngestCertificateFiles(certificate: certificate.certificate, key: certificate.key)))
            let source = try Live.fixture(seconds: 3)
            let port = try Live.freePort()
            let job = Self.listen(engine, "rtmps://127.0.0.1:\(port)/ingest/s3cret", root: folder, timeout: 4)
            #expect(Live.wait(seconds: 5) { engine.listeningPorts == 1 })
            #expect(try TestCertificate.served(port: port) == certificate.body(), "the listener does not serve the worker's certificate")
            let publisher = try Self.publishTLS(source, to: "rtmps://127.0.0.1:\(port)/ingest/s3cret", ca: certificate.ca)
            #expect(publisher.wait(seconds: 20) == 0, "publisher: \(publisher.stderr)")
            // The publisher unpublished: the job ends succeeded once `timeout_s` passes without it.
            let result = try #require(job.wait(seconds: 20), "the job did not end").get()
            #expect(result.progress.outputs.first?.status == .finished)
            try Self.expectWholeArchive(folder + "/out/archive.flv", of: source)
            #expect(engine.ingest.failedTLSHandshakes == 0)
            #expect(Live.wait(seconds: 3) { engine.listeningPorts == 0 })
        }

        @Test("a plain RTMP publisher on the TLS port is refused and counted; the listener then serves a TLS publisher")
        func plainClientRefused() throws {
            let folder = Live.scratch("rtmps-plain")
            let certificate = try TestCertificate.make(in: folder, name: "plain")
            let engine = RelayEngine(RelaySettings(threads: 1, rtmpsCAFile: nil,
                                    ingestCertificate: IngestCertificateFiles(certificate: certificate.certificate, key: certificate.key)))
            let source = try Live.fixture(seconds: 3)
            let port = try Live.freePort()
            // The job outlasts five publishers one after the other however slowly they start (at 20 s, a loaded CI
            // machine's job gave up before the last came); it is cancelled once the last one's frames arrived.
            let job = Self.listen(engine, "rtmps://127.0.0.1:\(port)/ingest/s3cret", root: folder, timeout: 90)
            #expect(Live.wait(seconds: 5) { engine.listeningPorts == 1 })
            for _ in 0..<3 {
                let plain = try Live.publish(source, to: "rtmp://127.0.0.1:\(port)/ingest/s3cret")
                #expect(plain.wait(seconds: 15) != 0, "a plain RTMP publisher got through the TLS port")
            }
            #expect(Live.wait(seconds: 5) { engine.ingest.failedTLSHandshakes >= 3 }, "failed handshakes: \(engine.ingest.failedTLSHandshakes)")
            #expect(engine.listeningPorts == 1)
            // A publisher that does not trust our CA refuses us: nothing is published, the listener carries on.
            let other = try TestCertificate.make(in: folder, name: "other")
            let untrusting = try Self.publishTLS(source, to: "rtmps://127.0.0.1:\(port)/ingest/s3cret", ca: other.ca)
            #expect(untrusting.wait(seconds: 15) != 0, "a publisher verifying against another CA published")
            let publisher = try Self.publishTLS(source, to: "rtmps://127.0.0.1:\(port)/ingest/s3cret", ca: certificate.ca)
            #expect(publisher.wait(seconds: 20) == 0, "publisher: \(publisher.stderr)")
            try Self.cancelWhenAllArrived(job, of: source)
            let result = try #require(job.wait(seconds: 10), "the job did not end").get()
            #expect(result.progress.inputReconnects == 0, "publishers routed to the job: \(result.progress.inputReconnects + 1)")
            try Self.expectWholeArchive(folder + "/out/archive.flv", of: source)
        }

        @Test("certificate files replaced while listening: the next connection gets the new certificate; a broken renewal keeps the old one")
        func renewedCertificateServed() throws {
            let folder = Live.scratch("rtmps-renew")
            let first = try TestCertificate.make(in: folder, name: "first")
            let second = try TestCertificate.make(in: folder, name: "second")
            let files = (certificate: folder + "/live/cert.pem", key: folder + "/live/key.pem")
            try FileManager.default.createDirectory(atPath: folder + "/live", withIntermediateDirectories: true)
            try first.install(as: files)
            let engine = RelayEngine(RelaySettings(threads: 1, rtmpsCAFile: nil,
                                    ingestCertificate: IngestCertificateFiles(certificate: files.certificate, key: files.key)))
            let source = try Live.fixture(seconds: 3)
            let port = try Live.freePort()
            let job = Self.listen(engine, "rtmps://127.0.0.1:\(port)/ingest/s3cret", root: folder, timeout: 30)
            #expect(Live.wait(seconds: 5) { engine.listeningPorts == 1 })
            #expect(try TestCertificate.served(port: port) == first.body())

            try second.install(as: files)
            #expect(try TestCertificate.served(port: port) == second.body(), "the renewed certificate is not served")
            // A renewal that leaves garbage in place: the second certificate keeps serving.
            try "not a certificate\n".write(toFile: files.certificate, atomically: false, encoding: .utf8)
            #expect(try TestCertificate.served(port: port) == second.body(), "a broken renewal replaced the served certificate")
            #expect(engine.ingest.certificate.counts == (loads: 2, failedLoads: 1))
            try second.install(as: files)

            // ffmpeg verifying against the second CA only: it publishes, so that is the certificate it was shown.
            let publisher = try Self.publishTLS(source, to: "rtmps://127.0.0.1:\(port)/ingest/s3cret", ca: second.ca)
            #expect(publisher.wait(seconds: 20) == 0, "publisher: \(publisher.stderr)")
            try Self.cancelWhenAllArrived(job, of: source)
            let result = try #require(job.wait(seconds: 10), "the job did not end").get()
            #expect(result.cancelled)
            try Self.expectWholeArchive(folder + "/out/archive.flv", of: source)
        }

        @Test("rtmps listen without SLUICE_RTMPS_CERT_FILE / SLUICE_RTMPS_KEY_FILE, or with unreadable files, fails naming them")
        func missingCertificate() throws {
            let port = try Live.freePort()
            let folder = Live.scratch("rtmps-missing")
            let url = "rtmps://127.0.0.1:\(port)/ingest/s3cret"
            let unset = RelayEngine(RelaySettings(threads: 1, rtmpsCAFile: nil, ingestCertificate: IngestCertificateFiles(environment: [:])))
            let error = try #require(Self.failure(of: Self.listen(unset, url, root: folder, timeout: 5)))
            #expect(error.description.contains("rtmps listen needs SLUICE_RTMPS_CERT_FILE and SLUICE_RTMPS_KEY_FILE"), "\(error)")
            #expect(!error.description.contains("s3cret"))
            #expect(unset.listeningPorts == 0)

            let onlyOne = IngestCertificateFiles(environment: [IngestCertificateFiles.certificateEnvironmentVariable: "/etc/hostname"])
            #expect(onlyOne.key == nil)
            let missing = RelayEngine(RelaySettings(threads: 1, rtmpsCAFile: nil,
                                     ingestCertificate: IngestCertificateFiles(certificate: folder + "/none.pem", key: folder + "/none.key")))
            let unreadable = try #require(Self.failure(of: Self.listen(missing, url, root: folder, timeout: 5)))
            #expect(unreadable.description.contains("rtmps listen needs SLUICE_RTMPS_CERT_FILE and SLUICE_RTMPS_KEY_FILE"), "\(unreadable)")
            #expect(unreadable.description.contains(folder + "/none.pem") && unreadable.description.contains("No such file"), "\(unreadable)")
            #expect(missing.listeningPorts == 0)
        }

        @Test("a plain and a TLS listen job on one port conflict clearly, whichever came first")
        func schemesConflictOnOnePort() throws {
            let folder = Live.scratch("rtmps-conflict")
            let certificate = try TestCertificate.make(in: folder, name: "conflict")
            let engine = RelayEngine(RelaySettings(threads: 1, rtmpsCAFile: nil,
                                    ingestCertificate: IngestCertificateFiles(certificate: certificate.certificate, key: certificate.key)))
            for (first, second) in [("rtmp", "rtmps"), ("rtmps", "rtmp")] {
                let port = try Live.freePort()
                let holder = Self.listen(engine, "\(first)://127.0.0.1:\(port)/ingest/one", root: folder, timeout: 30)
                #expect(Live.wait(seconds: 5) { engine.listeningPorts == 1 })
                let error = try #require(Self.failure(of: Self.listen(engine, "\(second)://127.0.0.1:\(port)/ingest/two", root: folder, timeout: 5)))
                #expect(error.description.contains("another job listens on 127.0.0.1:\(port) with \(first)://"), "\(error)")
                #expect(!error.description.contains("two"), "the key leaked: \(error)")
                holder.interrupter.cancel()
                #expect(try #require(holder.wait(seconds: 10)).get().cancelled)
                #expect(Live.wait(seconds: 3) { engine.listeningPorts == 0 })
            }
        }

        /// The job's failure, or nil when it did not fail within 10 s.
        private static func failure(of job: RunningJob) -> MediaJobError? {
            guard case let .failure(error) = job.wait(seconds: 10) else { return nil }
            return error
        }
    }
}

/// The reloader on its own: which context it serves as the files change, and what it reports.
@Suite("Ingest certificate reloader")
struct IngestCertificateReloaderTests {
    @Test("unchanged files are not read again; a renewal is served; a broken or mismatched one keeps the old context, reported once")
    func reloads() throws {
        let folder = Live.scratch("reloader")
        let first = try TestCertificate.make(in: folder, name: "one")
        let second = try TestCertificate.make(in: folder, name: "two")
        let files = (certificate: folder + "/cert.pem", key: folder + "/key.pem")
        try first.install(as: files)
        let lines = NIOLockedValueBox<[String]>([])
        let reloader = IngestCertificateReloader(files: IngestCertificateFiles(certificate: files.certificate, key: files.key)) { line in
            lines.withLockedValue { $0.append(line) }
        }
        let original = try reloader.context().get()
        #expect(try reloader.context().get() === original)
        #expect(reloader.counts == (loads: 1, failedLoads: 0))

        // Half a renewal: the second certificate beside the first key. Refused once, not tried again until a file changes.
        try FileManager.default.removeItem(atPath: files.certificate)
        try FileManager.default.copyItem(atPath: second.certificate, toPath: files.certificate)
        #expect(try reloader.context().get() === original)
        #expect(try reloader.context().get() === original)
        #expect(reloader.counts == (loads: 1, failedLoads: 1))
        let refusal = try #require(lines.withLockedValue { $0 }.first)
        #expect(lines.withLockedValue { $0.count } == 1)
        #expect(refusal.contains("still serving the previous one (serial ") && refusal.contains("does not go with the certificate"), "\(refusal)")

        // The key arrives: the renewal is served and reported.
        try second.install(as: files)
        let renewed = try reloader.context().get()
        #expect(renewed !== original)
        #expect(reloader.counts == (loads: 2, failedLoads: 1))
        #expect(lines.withLockedValue { $0.last }?.contains("serving the renewed certificate") == true)

        // Removed files: the last context keeps serving.
        try FileManager.default.removeItem(atPath: files.key)
        #expect(try reloader.context().get() === renewed)
        #expect(lines.withLockedValue { $0.last }?.contains("No such file") == true)
        #expect(!lines.withLockedValue { $0 }.joined().contains("PRIVATE KEY"))
    }

    @Test("a first load that fails names the settings and the file; nothing configured names the settings")
    func firstLoadFails() throws {
        let folder = Live.scratch("reloader-bad")
        try "garbage\n".write(toFile: folder + "/cert.pem", atomically: true, encoding: .utf8)
        try "garbage\n".write(toFile: folder + "/key.pem", atomically: true, encoding: .utf8)
        let broken = IngestCertificateReloader(files: IngestCertificateFiles(certificate: folder + "/cert.pem", key: folder + "/key.pem")) { _ in }
        guard case let .failure(error) = broken.context() else { Issue.record("garbage loaded"); return }
        #expect(error.description.hasPrefix(IngestCertificateError.needsFiles) && error.description.contains(folder + "/cert.pem"), "\(error)")
        let unset = IngestCertificateReloader(files: IngestCertificateFiles(certificate: "", key: nil)) { _ in }
        guard case let .failure(needs) = unset.context() else { Issue.record("nothing configured, yet a context"); return }
        #expect(needs.description == "rtmps listen needs SLUICE_RTMPS_CERT_FILE and SLUICE_RTMPS_KEY_FILE")
    }
}
