import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import TNotesCore
import TNotesRPC

#if canImport(Glibc)
import Glibc
#endif

/// The kernel's `struct ucred` (Glibc hides it behind _GNU_SOURCE), as SO_PEERCRED fills it in.
struct PeerCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// SO_PEERCRED on Linux.
private let soPeerCred: Int32 = 17

/// The JSON-RPC server on a Unix socket: newline framing, a bounded line length, a peer-uid check, one
/// task per connection (so a slow or stuck client holds back nobody but itself), requests on one
/// connection answered in order, and a graceful stop that finishes the requests in flight.
public final class UnixSocketServer: Service, Sendable {
    public struct Configuration: Sendable {
        public var maxLineBytes: Int
        /// uids allowed besides root; normally just the daemon's own.
        public var allowedUID: UInt32

        public init(maxLineBytes: Int = 4 << 20, allowedUID: UInt32 = getuid()) {
            self.maxLineBytes = maxLineBytes
            self.allowedUID = allowedUID
        }
    }

    typealias Connection = LineConnection

    /// Connections NIO accepted that the accept loop has not taken yet. When the listening socket closes
    /// (a stop), NIO drops the ones still buffered in its accept stream without closing them (and when a
    /// connection was a `NIOAsyncChannel`, dropping it trapped: "Deinited NIOAsyncWriter without calling
    /// finish()", apple/swift-nio#2813, a SIGTERM landing as a client connected crashed the daemon with
    /// signal 4). Holding them here until the loop takes them lets the stop finish and close the rest.
    final class AcceptedConnections: Sendable {
        private let state = Mutex<(closed: Bool, waiting: [ObjectIdentifier: Connection])>((false, [:]))

        /// In the child channel's initializer, on its event loop: wraps the channel and keeps it until the
        /// accept loop takes it. Once `closeRest` has run (the server is stopping) it throws instead: the
        /// failed initializer makes NIO close the channel, so a connection accepted as the server stops is
        /// never one that has to be closed later.
        func accept(_ channel: any Channel, wrap: () throws -> Connection) throws -> Connection {
            try state.withLock { s throws -> Connection in
                if s.closed { throw ChannelError.ioOnClosedChannel }
                let connection = try wrap()
                s.waiting[ObjectIdentifier(channel)] = connection
                return connection
            }
        }

        /// The accept loop took it: serving it closes it.
        func taken(_ connection: Connection) {
            _ = state.withLock { $0.waiting.removeValue(forKey: ObjectIdentifier(connection.channel)) }
        }

        /// After the accept loop: every connection it never took is finished and closed (and any accepted
        /// from now on is refused by `accept`).
        func closeRest() async {
            let rest = state.withLock { s -> [Connection] in
                s.closed = true
                defer { s.waiting = [:] }
                return Array(s.waiting.values)
            }
            // Never served: nothing was written, so nothing waits to go out.
            for c in rest { try? await c.channel.close() }
        }
    }

    private let serverChannel: NIOAsyncChannel<Connection, Never>
    private let accepted: AcceptedConnections
    private let dispatcher: Dispatcher
    private let configuration: Configuration
    private let logger: Logger
    private let state = Mutex(State())
    /// Called once per accepted connection, with its context (the daemon registers it for events).
    private let onConnect: @Sendable (ConnectionContext) -> Void
    private let onDisconnect: @Sendable (ConnectionContext) -> Void

    struct State {
        var nextId = 1
        var shuttingDown = false
        /// Open connections and whether each is in the middle of a request.
        var connections: [Int: (channel: any Channel, busy: Bool)] = [:]
    }

    /// Binds a new socket at `path` (the caller has dealt with any stale file) and sets it to mode 0600.
    public static func bind(path: String, group: MultiThreadedEventLoopGroup, dispatcher: Dispatcher,
                            configuration: Configuration, logger: Logger,
                            onConnect: @escaping @Sendable (ConnectionContext) -> Void = { _ in },
                            onDisconnect: @escaping @Sendable (ConnectionContext) -> Void = { _ in }) async throws
        -> UnixSocketServer
    {
        // The umask makes the file 0600 from the moment it exists; the chmod is belt and braces.
        let oldMask = umask(0o177)
        defer { umask(oldMask) }
        let max = configuration.maxLineBytes
        let accepted = AcceptedConnections()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            // A client may close its write side after its last request (`nc -N`, `printf … | socat`): keep
            // the connection open to answer everything it sent.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .bind(unixDomainSocketPath: path) { channel in
                Self.initialize(channel, maxLineBytes: max, accepted: accepted)
            }
        chmod(path, 0o600)
        return UnixSocketServer(channel: channel, accepted: accepted, dispatcher: dispatcher, configuration: configuration,
                                logger: logger, onConnect: onConnect, onDisconnect: onDisconnect)
    }

    /// Serves on an already bound and listening socket (systemd socket activation).
    public static func adopt(fd: Int32, group: MultiThreadedEventLoopGroup, dispatcher: Dispatcher,
                             configuration: Configuration, logger: Logger,
                             onConnect: @escaping @Sendable (ConnectionContext) -> Void = { _ in },
                             onDisconnect: @escaping @Sendable (ConnectionContext) -> Void = { _ in }) async throws
        -> UnixSocketServer
    {
        let max = configuration.maxLineBytes
        let accepted = AcceptedConnections()
        let channel = try await ServerBootstrap(group: group)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .bind(fd) { channel in
            Self.initialize(channel, maxLineBytes: max, accepted: accepted)
        }
        return UnixSocketServer(channel: channel, accepted: accepted, dispatcher: dispatcher, configuration: configuration,
                                logger: logger, onConnect: onConnect, onDisconnect: onDisconnect)
    }

    private static func initialize(_ channel: any Channel, maxLineBytes: Int, accepted: AcceptedConnections)
        -> EventLoopFuture<Connection>
    {
        channel.eventLoop.makeCompletedFuture {
            try accepted.accept(channel) {
                let handler = LineConnectionHandler()
                try channel.pipeline.syncOperations.addHandlers(
                    ByteToMessageHandler(LineFrameDecoder(maxLineBytes: maxLineBytes)), handler)
                return Connection(channel: channel, handler: NIOLoopBound(handler, eventLoop: channel.eventLoop))
            }
        }
    }

    private init(channel: NIOAsyncChannel<Connection, Never>, accepted: AcceptedConnections, dispatcher: Dispatcher,
                 configuration: Configuration, logger: Logger, onConnect: @escaping @Sendable (ConnectionContext) -> Void,
                 onDisconnect: @escaping @Sendable (ConnectionContext) -> Void)
    {
        self.serverChannel = channel
        self.accepted = accepted
        self.dispatcher = dispatcher
        self.configuration = configuration
        self.logger = logger
        self.onConnect = onConnect
        self.onDisconnect = onDisconnect
    }

    public func run() async throws {
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                do {
                    try await serverChannel.executeThenClose { inbound in
                        for try await connection in inbound {
                            accepted.taken(connection)
                            group.addTask(executorPreference: EventLoopTaskExecutor(connection.channel.eventLoop)) {
                                await self.serve(connection)
                            }
                        }
                    }
                } catch {
                    await accepted.closeRest()
                    throw error
                }
                await accepted.closeRest()
            }
        } onGracefulShutdown: {
            self.beginShutdown()
        }
        logger.debug("socket server stopped")
    }

    /// Stops accepting; closes idle connections now and busy ones after their current request.
    public func beginShutdown() {
        let idle: [any Channel] = state.withLock { s in
            s.shuttingDown = true
            return s.connections.values.filter { !$0.busy }.map { $0.channel }
        }
        serverChannel.channel.close(promise: nil)
        for c in idle { c.close(promise: nil) }
    }

    private func serve(_ connection: Connection) async {
        let channel = connection.channel
        let cred: PeerCredentials
        do {
            guard let provider = channel as? any SocketOptionProvider else { throw ChannelError.operationUnsupported }
            cred = try await provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(soPeerCred)).get()
        } catch {
            logger.warning("cannot read peer credentials; closing", metadata: ["error": "\(error)"])
            await connection.close()
            return
        }
        let id: Int? = state.withLock { s in
            if s.shuttingDown { return nil }
            let id = s.nextId
            s.nextId += 1
            s.connections[id] = (channel, false)
            return id
        }
        guard let id else {
            await connection.close()
            return
        }
        defer { _ = state.withLock { $0.connections.removeValue(forKey: id) } }
        let context = ConnectionContext(id: id, peerUID: cred.uid, peerPID: cred.pid)
        logger.debug("connection opened", metadata: ["conn": "\(id)", "uid": "\(cred.uid)", "pid": "\(cred.pid)"])

        // A stop past its deadline cancels this task: closing the channel ends every wait below, the last
        // answers' way out to a peer that does not read them included.
        await withTaskCancellationHandler {
            do {
                try await serveRequests(connection, id: id, uid: cred.uid, context: context)
            } catch {
                logger.debug("connection ended with an error", metadata: ["conn": "\(id)", "error": "\(error)"])
            }
            await connection.close()
        } onCancel: {
            channel.close(promise: nil)
        }
        logger.debug("connection closed", metadata: ["conn": "\(id)"])
    }

    private func serveRequests(_ connection: Connection, id: Int, uid: UInt32, context: ConnectionContext) async throws {
        if uid != 0 && uid != configuration.allowedUID {
            logger.warning("refused a client of another user", metadata: ["uid": "\(uid)"])
            let e = Dispatcher.response(id: .null, error: .forbidden("only uid \(configuration.allowedUID) or root may use this socket"))
            try? await connection.write([Self.lineBuffer(e)])
            return
        }
        onConnect(context)
        defer {
            context.finish()
            onDisconnect(context)
        }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            // Events go out on their own task so a request never waits for an event and vice versa.
            tasks.addTask {
                for await event in context.events {
                    try await connection.write([Self.lineBuffer(event)])
                }
            }
            defer { tasks.cancelAll() }
            while let frame = await connection.next() {
                switch frame {
                case .tooLong:
                    logger.info("request line over the limit; closing", metadata: ["conn": "\(id)"])
                    let e = Dispatcher.response(id: .null, error: .tooLarge(limit: configuration.maxLineBytes))
                    try await connection.write([Self.lineBuffer(e)])
                    return
                case .lines(let lines):
                    // Answers are written together at the end of the batch (one write for a
                    // pipelining client), or at once when answering has taken a while already, so
                    // a slow request never holds back the answers before it for long. The connection
                    // counts as busy until its answers are out: a graceful stop waits for them.
                    guard markBusy(id, true) else { return }
                    var answers: [ByteBuffer] = []
                    var since = ContinuousClock.now
                    let prepared = lines.compactMap { buffer -> Dispatcher.PreparedLine? in
                        let bytes = Array(buffer.readableBytesView)
                        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return nil }
                        return dispatcher.prepare(line: bytes)
                    }
                    var next = 0
                    while next < prepared.count {
                        // A run of pipelined read-only calls is answered side by side (a read waits on a
                        // reader thread, not on the call before it); anything else runs alone, in order.
                        var end = next + 1
                        while end < prepared.count && end - next < Self.maxParallelReads
                            && prepared[next].readOnly && prepared[end].readOnly { end += 1 }
                        for reply in await answer(prepared[next..<end], context: context) {
                            answers.append(Self.lineBuffer(reply))
                        }
                        next = end
                        if !answers.isEmpty && ContinuousClock.now - since > .milliseconds(2) {
                            try await connection.write(answers)
                            answers.removeAll()
                            since = ContinuousClock.now
                        }
                        // Stopping: the request in hand is answered, the rest of the batch is not started.
                        if state.withLock({ $0.shuttingDown }) { break }
                    }
                    if !answers.isEmpty { try await connection.write(answers) }
                    guard markBusy(id, false) else { return }
                }
            }
        }
    }

    /// How many pipelined read-only calls of one connection are started together. More than the store's
    /// reader threads (4) just queue there, but each run ends with a wait for its slowest call: measured with
    /// the bench's pipelined `sermon.get`, runs of 4 gave 14 k req/s and runs of 16 gave 17–18 k req/s.
    static let maxParallelReads = 16

    /// The answers to `lines`, in their order; the lines run concurrently (the caller passes only runs of
    /// read-only calls as more than one line).
    private func answer(_ lines: ArraySlice<Dispatcher.PreparedLine>, context: ConnectionContext) async -> [JSON] {
        if lines.count == 1, let only = lines.first {
            return await dispatcher.answer(only, context: context).map { [$0] } ?? []
        }
        let dispatcher = self.dispatcher
        var replies = [JSON?](repeating: nil, count: lines.count)
        await withTaskGroup(of: (Int, JSON?).self) { group in
            for (k, line) in lines.enumerated() {
                group.addTask { (k, await dispatcher.answer(line, context: context)) }
            }
            for await (k, reply) in group { replies[k] = reply }
        }
        return replies.compactMap { $0 }
    }

    /// Records whether a connection is busy; false when the server is shutting down and the
    /// connection should close (after finishing what it was doing).
    private func markBusy(_ id: Int, _ busy: Bool) -> Bool {
        state.withLock { s in
            if s.shuttingDown { return false }
            s.connections[id]?.busy = busy
            return true
        }
    }

    static func lineBuffer(_ json: JSON) -> ByteBuffer {
        var bytes = json.bytes
        bytes.append(UInt8(ascii: "\n"))
        return ByteBuffer(bytes: bytes)
    }
}
