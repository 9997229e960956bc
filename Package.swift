// swift-tools-version: 6.1
import PackageDescription

/// One setting list for every Swift target, so the whole package is held to the same language rules.
let swiftSettings: [SwiftSetting] = [
    // `any P` spelled out makes existential costs visible at the call site.
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Sluice",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "sluice", targets: ["SluiceCLI"]),
        .library(name: "MediaFormats", targets: ["MediaFormats"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // Without the default ConfigurationSupport trait: the worker takes its settings from ArgumentParser.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
        // Named for NIOCore's `Channel` (the bound port); Hummingbird already depends on it.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        // Named for ServiceGroup, whose graceful shutdown stops the HTTP server cleanly with the worker.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        // TLS for rtmps:// pulls and publishes on the relay engine.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // AES-GCM for the job secrets the store keeps sealed at rest.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // Pure Swift bitstream core: no dependencies, no C types, no logging.
        .target(name: "MediaFormats", swiftSettings: swiftSettings),
        // FFmpeg 5.1's headers from the system (libavformat-dev, libavcodec-dev, libavutil-dev, libswscale-dev,
        // libswresample-dev), plus a shim for the macros Swift cannot import. Nothing links libav: libav_loader.c opens
        // it on the first call, so a worker that only relays never maps it.
        .target(name: "CFFmpeg", dependencies: ["CLibraryLoader"]),
        // What the two loaders share: opening a set of libraries once, finding a function, the forwarders' macros.
        .target(name: "CLibraryLoader"),
        // Threads that name themselves as ps and /proc show them: Linux's prctl(PR_SET_NAME), which Swift cannot call
        // (variadic), and the one place Sluice starts a thread of its own (`startNamedThread`).
        .target(name: "CThreadName"),
        .target(name: "NamedThreads", dependencies: ["CThreadName"], swiftSettings: swiftSettings),
        // librabbitmq 0.11 from the system, plus a shim for its variadic login.
        .systemLibrary(name: "CRabbitMQ", pkgConfig: "librabbitmq", providers: [.apt(["librabbitmq-dev"])]),
        .target(name: "JobQueue", dependencies: ["CRabbitMQ", "NamedThreads", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")], swiftSettings: swiftSettings),
        // libsrt 1.5.1's headers from the system (libsrt-gnutls-dev: Debian's GnuTLS build, the one libavformat59 links);
        // the shim gathers them. Nothing links libsrt: srt_loader.c opens it on the first call.
        .target(name: "CSRT", dependencies: ["CLibraryLoader"]),
        // The SRT transport: listener, caller and connection on one `sluice-srt` epoll thread; of Sluice it knows only the
        // job document's SRT address types (SRTURL, SRTStreamID), parsed once there.
        .target(name: "SRTTransport", dependencies: ["CSRT", "JobDocument", "NamedThreads", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")], swiftSettings: swiftSettings),
        // A job's media as both engines see it: the JobEngine protocol, the options, progress, result and errors, the
        // interrupter, the timeline splicer, the live transport's protocols, and the output files (parts, fsync,
        // rename). No FFmpeg, no network, so the relay engine links neither libav nor the codec engine.
        .target(name: "MediaJob", dependencies: ["MediaFormats", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")], swiftSettings: swiftSettings),
        // Linux's writeback hint (sync_file_range through syscall(2), which Swift cannot call): C, nothing linked.
        .target(name: "CFileIO"),
        // One writer per output format, for both engines: the sinks (FLV, fragmented MP4, MPEG-TS, HLS and LL-HLS,
        // segmented recordings, Annex B, ADTS) take media packets and write through `OutputFile`; the live edge reads FLV
        // tags as packets. No FFmpeg and no network, so the relay engine writes every file format without libav.
        .target(name: "MediaSinks", dependencies: ["MediaFormats", "MediaJob", "CFileIO", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")], swiftSettings: swiftSettings),
        .target(name: "MediaEngine", dependencies: ["MediaFormats", "MediaJob", "MediaSinks", "CFFmpeg", "NamedThreads"], swiftSettings: swiftSettings),
        // The RTMP protocol in pure Swift (handshake, chunk stream, messages, AMF0 commands, NetConnection and
        // NetStream state machines): bytes in, actions out; no I/O, so it is tested byte by byte and fuzzed.
        .target(name: "RTMP", dependencies: ["MediaFormats"], swiftSettings: swiftSettings),
        // The RTSP 1.0 client in pure Swift (message reader and writer, interleaved frames, Transport and Session headers,
        // Basic and Digest authentication, the client state machine): bytes in, actions out; the RTP payload formats and
        // the SDP it carries are MediaFormats'. Crypto for Digest's MD5 and SHA-256.
        .target(name: "RTSP", dependencies: ["MediaFormats", .product(name: "Crypto", package: "swift-crypto")], swiftSettings: swiftSettings),
        // DTLS (OpenSSL 3) and SRTP (libsrtp2) for WebRTC, opened on first use as libsrt is: a worker that carries no
        // WebRTC never maps them.
        .target(name: "CWebRTCCrypto", dependencies: ["CLibraryLoader"]),
        // WebRTC's transport: STUN and ICE-lite in pure Swift, DTLS-SRTP over CWebRTCCrypto; datagrams and time in,
        // datagrams and events out, so every piece is tested without a socket. Crypto for STUN's HMAC-SHA1.
        .target(name: "WebRTC", dependencies: ["MediaFormats", "CWebRTCCrypto", .product(name: "Crypto", package: "swift-crypto")],
                swiftSettings: swiftSettings),
        // The relay engine: RTMP connections on SwiftNIO (ingest port, pulls, publishes, RTMPS), RTSP pulls, WHIP publishers
        // (the shared HTTP and UDP ports), relaying
        // live copy jobs on a fixed number of event-loop threads whatever the number of streams.
        .target(
            name: "LiveRelay",
            dependencies: ["RTMP", "RTSP", "WebRTC", "MediaFormats", "MediaJob", "MediaSinks", "JobDocument", "SRTTransport", "NamedThreads",
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio"),
                           .product(name: "NIOConcurrencyHelpers", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl")],
            swiftSettings: swiftSettings
        ),
        .target(name: "JobStore", dependencies: [.product(name: "GRDB", package: "GRDB.swift"), .product(name: "Crypto", package: "swift-crypto")],
                swiftSettings: swiftSettings),
        // The job document (spec, limits, validation, redaction, path policy): Foundation only, so it can be
        // read, tested and turned into a JSON Schema without FFmpeg, SQLite or a broker.
        .target(name: "JobDocument", dependencies: ["MediaFormats"], swiftSettings: swiftSettings),
        .target(
            name: "Sluice",
            dependencies: ["JobDocument", "MediaFormats", "MediaJob", "MediaEngine", "LiveRelay", "JobStore", "JobQueue", "NamedThreads",
                           // NIOCore for System.coreCount (cgroup- and cpuset-aware), the cores the engine's loops use too.
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                           .product(name: "Logging", package: "swift-log"), .product(name: "Metrics", package: "swift-metrics"),
                           .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        // The worker's HTTP side (/metrics, /healthz, the admin page): only the executable links Hummingbird.
        .target(
            name: "SluiceHTTP",
            dependencies: ["Sluice", "JobDocument", "JobStore", "MediaJob", "MediaFormats", "NamedThreads", .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio"), .product(name: "Prometheus", package: "swift-prometheus"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // The executable is named `sluice` by its product; the target differs from `Sluice` by more than case.
        .executableTarget(
            name: "SluiceCLI",
            dependencies: ["Sluice", "SluiceHTTP", "JobDocument", "MediaJob", "LiveRelay", "MediaEngine", "SRTTransport",
                           .product(name: "NIOConcurrencyHelpers", package: "swift-nio"), .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: swiftSettings,
            // The shipped binary, linked lighter: lld packs its ~130,000 relative relocations (3 MiB of .rela.dyn, read
            // whole at every start) into 25 KiB of DT_RELR (glibc 2.36), and no symbol of its own is exported (the
            // static Swift runtime's link arguments export 46,000), which nothing looks up.
            linkerSettings: [.unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                                           "-Xlinker", "--no-export-dynamic"], .when(configuration: .release))]
        ),
        // Release-mode micro-benchmark for the MediaFormats hot paths (run by scripts/bench).
        .executableTarget(name: "MediaFormatsBench", dependencies: ["MediaFormats"], path: "Benchmarks/MediaFormatsBench", swiftSettings: swiftSettings),
        // Helpers several test targets share (a seeded generator, tmpfs mounts); not a test target itself.
        .target(name: "SluiceTestSupport", path: "Tests/SluiceTestSupport", swiftSettings: swiftSettings),
        .testTarget(name: "MediaFormatsTests", dependencies: ["MediaFormats", "SluiceTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "MediaJobTests", dependencies: ["MediaJob", "MediaFormats", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")], swiftSettings: swiftSettings),
        .testTarget(name: "MediaSinksTests", dependencies: ["MediaSinks", "MediaJob", "MediaFormats"], swiftSettings: swiftSettings),
        .testTarget(name: "MediaEngineTests", dependencies: ["MediaEngine", "MediaSinks", "MediaJob", "MediaFormats"], swiftSettings: swiftSettings),
        .testTarget(name: "RTMPTests", dependencies: ["RTMP", "MediaFormats", "SluiceTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "RTSPTests", dependencies: ["RTSP", "MediaFormats"], swiftSettings: swiftSettings),
        .testTarget(name: "WebRTCTests", dependencies: ["WebRTC", "MediaFormats"], swiftSettings: swiftSettings),
        // The relay engine against nginx-rtmp, ffmpeg and hostile peers on loopback; MediaEngine only for the test that
        // runs the codec stage over the engine (EnhancedTranscodeTests), as the worker wires them (LiveRelay links no FFmpeg).
        .testTarget(name: "LiveRelayTests", dependencies: ["LiveRelay", "RTMP", "MediaJob", "MediaSinks", "MediaEngine", "MediaFormats", "JobDocument", "SluiceTestSupport",
                                                           .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                                                           .product(name: "NIOEmbedded", package: "swift-nio"),
                                                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")],
                    swiftSettings: swiftSettings),
        .testTarget(name: "JobQueueTests", dependencies: ["JobQueue", "SluiceTestSupport", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")], swiftSettings: swiftSettings),
        // The SRT transport on loopback against itself, ffmpeg and srt-live-transmit.
        .testTarget(name: "SRTTransportTests", dependencies: ["SRTTransport", "JobDocument", "SluiceTestSupport", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")], swiftSettings: swiftSettings),
        .testTarget(name: "JobStoreTests", dependencies: ["JobStore", .product(name: "GRDB", package: "GRDB.swift")], swiftSettings: swiftSettings),
        .testTarget(name: "JobDocumentTests", dependencies: ["JobDocument", "SluiceTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "SluiceTests", dependencies: ["Sluice", "JobDocument", "MediaJob", "MediaEngine", "MediaSinks", "LiveRelay", "JobStore", "MediaFormats", "JobQueue", "SluiceTestSupport"], swiftSettings: swiftSettings),
        // The queue worker end to end: the real `sluice worker` binary against the private broker.
        .testTarget(name: "WorkerTests", dependencies: ["Sluice", "JobQueue", "JobStore", "MediaJob", "MediaEngine", "MediaSinks", "MediaFormats", "SluiceTestSupport"], swiftSettings: swiftSettings),
        // The HTTP side in-process on seeded databases, and the admin page rendered in headless Chromium.
        .testTarget(name: "SluiceHTTPTests", dependencies: ["SluiceHTTP", "Sluice", "JobDocument", "JobStore", "JobQueue", "MediaJob", "MediaEngine", "MediaFormats"], swiftSettings: swiftSettings),
    ],
    swiftLanguageModes: [.v6]
)
