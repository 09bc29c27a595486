// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "tnotes",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "tnotesd", targets: ["tnotesd"]),
        .executable(name: "tnotes", targets: ["tnotes"]),
        .executable(name: "tnotes-bench", targets: ["tnotes-bench"]),
        .executable(name: "tnotes-server", targets: ["tnotes-server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/JohnSundell/Ink.git", from: "0.6.0"),
    ],
    targets: [
        // SQLite from Debian's libsqlite3-dev.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),

        // libsystemd (Debian's libsystemd-dev): sd_notify, socket activation.
        .systemLibrary(name: "CSystemd", path: "Sources/CSystemd", providers: [.apt(["libsystemd-dev"])]),
        // sd-bus, libsystemd's D-Bus client (the same library as CSystemd): the daemon on the desktop's buses
        // (contract §8.4). C, because sd-bus's convenient calls are variadic and its handlers are C callbacks.
        .target(name: "CDesktopBus", linkerSettings: [.linkedLibrary("systemd")]),
        // CMU PocketSphinx (Debian's libpocketsphinx-dev, model in pocketsphinx-en-us): offline speech to text.
        // SWORD (Debian's libsword-dev, its C "flat API"): offline Bible text from sword-text-kjv / sword-text-web.
        // Both are loaded on first use (dlopen), not linked: each loader's header says why. The -I paths are
        // Debian's (pkg-config's cflags), for the real prototypes the loaders type their pointers with.
        .target(name: "CDynamicLibrary"),
        // The loaded objects' read-only segments, released from an idle process's resident set (dl_iterate_phdr).
        .target(name: "CLoadedSegments"),
        // posix_spawn's closefrom file action, which Swift's Glibc module does not declare.
        .target(name: "CSpawn"),
        .target(name: "CPocketSphinx", dependencies: ["CDynamicLibrary"], cSettings: [.unsafeFlags([
            "-I/usr/include/pocketsphinx", "-I/usr/include/sphinxbase", "-I/usr/include/x86_64-linux-gnu/sphinxbase",
            "-I/usr/include/aarch64-linux-gnu/sphinxbase",
        ])]),
        .target(name: "CSword", dependencies: ["CDynamicLibrary"], cSettings: [.unsafeFlags(["-I/usr/include/sword"])]),
        // sherpa-onnx's C API (PyPI's sherpa-onnx-core 2.0.1, installed by `tnotes models install`, not Debian's):
        // Moonshine speech to text and the Silero VAD, loaded on first use in the recognizer's worker process.
        .target(name: "CSherpaOnnx", dependencies: ["CDynamicLibrary"], exclude: ["vendor"]),
        // jemalloc (Debian's libjemalloc-dev): the sync server's allocator (see tnotes-server's Allocator.swift).
        .systemLibrary(name: "CJemalloc", path: "Sources/CJemalloc", pkgConfig: "jemalloc", providers: [.apt(["libjemalloc-dev"])]),
        // libcurl (Debian's libcurl4-openssl-dev) behind a small C shim: curl_easy_setopt is variadic.
        // Loaded (dlopen) by the first sync request, not linked: a local-only daemon never maps it (tn_curl_api.h).
        .target(name: "CCurlShim", dependencies: ["CDynamicLibrary"]),
        // PulseAudio's client library (libpulse-dev) and libopusenc/libogg (libopusenc-dev, libogg-dev): capture and
        // Ogg Opus for recording, loaded on first use (CPulseAudio.h, COggOpus.h say why).
        .target(name: "CPulseAudio", dependencies: ["CDynamicLibrary"]),
        .target(name: "COggOpus", dependencies: ["CDynamicLibrary"], cSettings: [.unsafeFlags(["-I/usr/include/opus"])]),
        // Models, record schemas, HLC, merge rule, the one JSON codec.
        .target(name: "TNotesCore", dependencies: [
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // Log lines for the executables: stderr, with journal priorities under systemd.
        .target(name: "TNotesLogging", dependencies: [
            .product(name: "Logging", package: "swift-log"), .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // Strict TOML reading (unknown key / wrong type / bad value → an error naming file and key).
        .target(name: "TNotesConfig", dependencies: [.product(name: "TOMLKit", package: "TOMLKit")]),
        // A small SQLite connection/statement layer, shared by the daemon's store and the server.
        .target(name: "TNotesSQLite", dependencies: ["CSQLite"]),
        // SQLite store: migrations, records, outbox, cursor, meta.
        .target(name: "TNotesStore", dependencies: [
            "CSQLite", "TNotesSQLite", "TNotesCore", "TNotesScripture",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // JSON-RPC 2.0 as a protocol: method table (dispatch + OpenRPC), params validation, batches.
        .target(name: "TNotesRPC", dependencies: [
            "TNotesCore",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The Unix socket transport (swift-nio): line framing with a limit, peer check, graceful stop.
        .target(name: "TNotesSocketServer", dependencies: [
            "TNotesCore", "TNotesRPC",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The sync engine: outbox push, cursor pull, backoff, triggers (incl. network changes), audio transfers.
        .target(name: "TNotesSync", dependencies: [
            "TNotesCore", "TNotesStore", "TNotesLifecycle", "CCurlShim",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // Supervision shared by tnotesd and tnotes-server: named services whose failure is one log line and a
        // non-zero exit; how blocking work leaves the event loops (BlockingWork.swift).
        .target(name: "TNotesLifecycle", dependencies: [
            "TNotesCore", "CLoadedSegments",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // Scripture references: book names, abbreviations, written and spoken forms (pure logic, no I/O).
        .target(name: "TNotesScripture"),
        // Bible text from installed SWORD modules, by our references.
        .target(name: "TNotesBible", dependencies: ["CSword", "TNotesScripture"]),
        // Local processing: the durable job queue's worker, transcription engines (PocketSphinx, a command),
        // the extractive summariser and the sermon assistant.
        .target(name: "TNotesProcessing", dependencies: [
            "TNotesCore", "TNotesStore", "TNotesScripture", "CPocketSphinx", "CSherpaOnnx", "CSpawn",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Subprocess", package: "swift-subprocess"),
            .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // Recording (contract §8.2): capture from the sound server into a crash-safe Ogg Opus file.
        .target(name: "TNotesRecording", dependencies: ["CPulseAudio", "COggOpus", "TNotesLifecycle"]),
        // The desktop over D-Bus: notifications, metered network, battery, sleep (contract §8.4).
        .target(name: "TNotesDesktop", dependencies: [
            "CDesktopBus", "TNotesLifecycle",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The daemon: config, paths, single-instance lock, record methods, wiring.
        .target(name: "TNotesDaemon", dependencies: [
            "TNotesCore", "TNotesStore", "TNotesRPC", "TNotesSocketServer", "TNotesConfig", "TNotesSync", "CSystemd",
            "TNotesLifecycle", "TNotesProcessing", "TNotesScripture", "TNotesBible", "TNotesRecording", "TNotesDesktop",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            .product(name: "TOMLKit", package: "TOMLKit"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // The sync server: HTTP API (Hummingbird), storage on SQLite or PostgreSQL, users and tokens.
        .target(name: "TNotesServer", dependencies: [
            "TNotesCore", "TNotesSQLite", "TNotesConfig", "TNotesLifecycle", "TNotesBible", "TNotesScripture",
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "Mustache", package: "swift-mustache"),
            .product(name: "Ink", package: "Ink"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "SystemPackage", package: "swift-system"),
        ], plugins: ["EmbedOpenAPI"]),
        // Compiles docs/openapi.json into TNotesServer (OpenAPIDocument.json): the file is the one copy, the
        // binary carries the text (no resource bundle at run time: the Debian package's build is static).
        .plugin(name: "EmbedOpenAPI", capability: .buildTool(), dependencies: ["tnotes-embed-text"]),
        .executableTarget(name: "tnotes-embed-text"),
        .executableTarget(name: "tnotes-server", dependencies: [
            "TNotesServer", "TNotesLogging", "TNotesConfig", "TNotesCore", "TNotesLifecycle", "CJemalloc",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        ]),
        .executableTarget(name: "tnotesd", dependencies: [
            "TNotesDaemon", "TNotesLogging", "TNotesConfig", "TNotesStore", "TNotesProcessing",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // The one client of the daemon's socket (the CLI's, the tests' and the bench's) and the default socket path.
        .target(name: "TNotesClient", dependencies: ["TNotesCore", .product(name: "SystemPackage", package: "swift-system")]),
        // The CLI's renderings of what the daemon returns: pure, total functions of JSON, a library of their own
        // so a fuzzer can call them.
        .target(name: "TNotesCLIRender", dependencies: ["TNotesCore"]),
        .executableTarget(name: "tnotes", dependencies: [
            "TNotesClient", "TNotesCore", "TNotesCLIRender",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // The benchmark: real processes, every figure beside a baseline measured in the same run.
        .executableTarget(name: "tnotes-bench", dependencies: [
            "TNotesCore", "TNotesStore", "TNotesSQLite", "TNotesTestSupport", "TNotesClient", .product(name: "Logging", package: "swift-log"),
            .product(name: "Crypto", package: "swift-crypto"), .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // libFuzzer targets (built with -sanitize=fuzzer -DFUZZING by scripts/fuzz.sh); a normal build replays the corpus.
        .target(name: "CFuzzSupport"),
        .target(name: "TNotesFuzzSupport", dependencies: ["CFuzzSupport"]),
        .executableTarget(name: "tnotes-fuzz-rpc", dependencies: [
            "TNotesFuzzSupport", "TNotesCore", "TNotesRPC", "TNotesDaemon", "TNotesStore",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "tnotes-fuzz-push", dependencies: ["TNotesFuzzSupport", "TNotesCore"]),
        .executableTarget(name: "tnotes-fuzz-render", dependencies: [
            "TNotesFuzzSupport", "TNotesCore", "TNotesServer", "TNotesCLIRender", "TNotesProcessing", "TNotesScripture",
        ]),
        // One harness for the tests and the bench: process launchers (daemon, server, PostgreSQL), the tests'
        // wrapper of TNotesClient's socket client, fault proxy. A library of its own, so the bench is not built from Tests/.
        .target(name: "TNotesTestSupport", dependencies: [
            "TNotesCore", "TNotesClient", .product(name: "SystemPackage", package: "swift-system"),
        ]),
        .testTarget(name: "TNotesCoreTests", dependencies: ["TNotesCore", "TNotesTestSupport"]),
        .testTarget(name: "TNotesStoreTests", dependencies: ["TNotesStore", "TNotesSQLite", "TNotesCore", "TNotesTestSupport",
                                                       .product(name: "Logging", package: "swift-log")],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "TNotesDaemonTests", dependencies: ["TNotesTestSupport", "TNotesCore", "tnotesd", "TNotesLifecycle"]),
        .testTarget(name: "TNotesCLITests", dependencies: ["TNotesTestSupport", "TNotesCore", "TNotesCLIRender", "TNotesSQLite", "tnotes", "tnotesd"],
                    resources: [.copy("Golden")]),
        .testTarget(name: "TNotesReliabilityTests", dependencies: ["TNotesTestSupport", "TNotesCore", "tnotesd", "tnotes-server"]),
        .testTarget(name: "TNotesSyncTests", dependencies: ["TNotesTestSupport", "TNotesCore", "TNotesStore", "TNotesSQLite", "TNotesSync", "tnotesd", "tnotes-server", "tnotes"]),
        .testTarget(name: "TNotesScriptureTests", dependencies: ["TNotesScripture"]),
        .testTarget(name: "TNotesRPCTests", dependencies: ["TNotesRPC", "TNotesCore", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "TNotesBibleTests", dependencies: ["TNotesBible", "TNotesScripture"]),
        .testTarget(name: "TNotesProcessingTests", dependencies: [
            "TNotesProcessing", "TNotesSQLite", "TNotesTestSupport", "TNotesCore", "tnotesd", "tnotes-server",
        ]),
        .testTarget(name: "TNotesServerTests", dependencies: ["TNotesTestSupport", "TNotesCore", "TNotesSQLite", "TNotesServer", "tnotes-server",
                                                                     .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                                                                     .product(name: "NIOCore", package: "swift-nio"),
                                                                     .product(name: "PostgresNIO", package: "postgres-nio"),
                                                                     .product(name: "Logging", package: "swift-log")]),
    ]
)

// Package-wide Swift settings, as the swift-nio and Hummingbird packages have them: existential types spelled
// `any P`, and a member visible only where its module is imported in that file (a plugin target takes no settings).
for target in package.targets where target.type != .system && target.type != .plugin && !target.name.hasPrefix("C") {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ]
}

// scripts/fuzz.sh sets TNOTES_FUZZ to build the libFuzzer targets, with the flags on this package's own modules
// only. Two reasons:
// - Instrumenting the dependencies too (swift-nio, Crypto, TOMLKit …) gave the RPC target 370 k counters, and
//   libFuzzer's scan of them after every input was 17 % of its time.
// - The dependencies' compile commands stay those of the Debian packages' release build (scripts/make-deb.sh),
//   so the fuzz builds share that build's scratch and compile only this package's modules again: three full
//   release builds of every dependency (one of them under ASan) were ~12 of the 40 minutes of `make test`.
//   Swift's memory safety covers the dependencies' Swift code; the unsafe code that ASan is for is ours (the
//   JSON parser, the SQLite binding).
// `coverage`: edge coverage for libFuzzer, no ASan (the RPC and render targets, for speed: see fuzz.sh).
// `asan`: coverage and AddressSanitizer (the push target, and the replay of the RPC target's corpus).
let fuzzFlags: [String]? = switch Context.environment["TNOTES_FUZZ"] {
case "coverage": ["-sanitize=fuzzer", "-DFUZZING"]
case "asan": ["-sanitize=address", "-sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table", "-DFUZZING"]
default: nil
}
if let fuzzFlags {
    for target in package.targets where (target.type == .regular || target.type == .executable) && !target.name.hasPrefix("C") {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(fuzzFlags)]
    }
    // The sanitizer's runtime is linked into the fuzz targets (libFuzzer itself comes from fuzz.sh's -Xlinker).
    if fuzzFlags.contains("-sanitize=address") {
        for target in package.targets where target.name.hasPrefix("tnotes-fuzz-") {
            target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-sanitize=address"])]
        }
    }
}

// Release executables are linked by lld, with packed relative relocations (DT_RELR, glibc ≥ 2.36) and no
// dynamic symbol table beyond what they import. Measured on the idle local-only tnotesd, Swift runtime linked in
// statically as in the packages (2026-11-29): VmRSS 28.3 MiB with gold's defaults, 23.7 MiB with these.
// - gold wrote 170 k relative relocations, 2.5 MiB of .rela.dyn that the loader reads whole at every start;
//   RELR packs them into 21 KiB.
// - SwiftPM exports every symbol of an executable (--export-dynamic): 26 k symbols, whose .gnu.hash, .dynsym and
//   .dynstr (1.8 MiB) were touched by every symbol lookup of every shared library, since the executable comes
//   first in the lookup scope. Nothing looks a symbol of ours up by name.
// Not the fuzz targets: the sanitizer runtimes export their interceptors through the dynamic table.
for target in package.targets where target.type == .executable && !target.name.hasPrefix("tnotes-fuzz-") {
    target.linkerSettings = (target.linkerSettings ?? []) + [
        .unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic"],
                     .when(configuration: .release)),
    ]
}
