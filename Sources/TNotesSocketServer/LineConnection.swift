import NIOCore

/// One accepted connection as its serving task sees it: the next frame of lines, and writes of answers. Its
/// methods run on the connection's event loop (the serving task prefers that loop as its executor).
///
/// Why not `NIOAsyncChannel`: its inbound sequence and outbound writer each take a lock, run a generic state
/// machine and queue per element, on the loop, twice per request; `perf` under a one-client `note.add` loop
/// put them at about a quarter of the event loop's samples, and the loop's time is on every request's path.
/// Here a frame goes from `channelRead` to the waiting task by one continuation, and an answer goes out by
/// one `write` and `flush`. Measured in six interleaved pairs of 6,000 one-client `note.add` calls: the
/// loop's CPU per call 112-135 µs before, 92-103 µs after; the call itself 585-663 µs, 530-601 µs.
struct LineConnection: Sendable {
    let channel: any Channel
    let handler: NIOLoopBound<LineConnectionHandler>

    /// The next frame, or nil once the input has ended (the peer closed its side, an error, or the channel
    /// closed). Frames that arrived before the end are still delivered.
    func next() async -> LineFrame? { await handler.value.next() }

    /// Writes and flushes `buffers`, then waits while the channel is not writable (a peer that does not read
    /// holds back only itself, and its answers do not pile up here). Throws once the channel has closed.
    func write(_ buffers: [ByteBuffer]) async throws {
        try await handler.value.write(buffers)
    }

    /// Closes the channel after everything written so far has gone out (on the loop, as every method here).
    func close() async {
        await handler.value.drained()
        try? await channel.close()
    }
}

/// The pipeline's last handler (after `LineFrameDecoder`): hands frames to the serving task, writes its
/// answers, and stops reading while frames wait (the peer is then held back by its socket buffer).
final class LineConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = LineFrame
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Frames read but not taken yet before reading stops.
    static let maxWaitingFrames = 4

    private var context: ChannelHandlerContext?
    private var frames = CircularBuffer<LineFrame>()
    private var inputEnded = false
    private var active = true
    private var frameWaiter: CheckedContinuation<LineFrame?, Never>?
    private var writabilityWaiters: [CheckedContinuation<Void, Never>] = []
    private var readHeld = false
    private var lastWrite: EventLoopFuture<Void>?

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        active = false
        endInput()
        resumeWriters()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if let waiter = frameWaiter {
            frameWaiter = nil
            waiter.resume(returning: frame)
        } else {
            frames.append(frame)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed? = event as? ChannelEvent { endInput() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        active = false
        endInput()
        resumeWriters()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A read error (a reset) or a decoder's: the connection is over, as the async channel ended it.
        endInput()
        context.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { resumeWriters() }
        context.fireChannelWritabilityChanged()
    }

    func read(context: ChannelHandlerContext) {
        if frames.count >= Self.maxWaitingFrames {
            readHeld = true
        } else {
            context.read()
        }
    }

    // MARK: For the serving task (on the loop)

    func next() async -> LineFrame? {
        if let frame = frames.popFirst() {
            if readHeld && frames.count < Self.maxWaitingFrames {
                readHeld = false
                context?.read()
            }
            return frame
        }
        if inputEnded { return nil }
        return await withCheckedContinuation { frameWaiter = $0 }
    }

    func write(_ buffers: [ByteBuffer]) async throws {
        guard active, let context else { throw ChannelError.ioOnClosedChannel }
        for buffer in buffers { lastWrite = context.write(wrapOutboundOut(buffer)) }
        context.flush()
        while active && !context.channel.isWritable {
            let loop = context.eventLoop
            let bound = NIOLoopBound(self, eventLoop: loop)
            try await withTaskCancellationHandler {
                await withCheckedContinuation { writabilityWaiters.append($0) }
                try Task.checkCancellation()
            } onCancel: {
                loop.execute { bound.value.resumeWriters() }
            }
        }
        if !active { throw ChannelError.ioOnClosedChannel }
    }

    func drained() async {
        if let lastWrite { _ = try? await lastWrite.get() }
    }

    // MARK: -

    private func endInput() {
        inputEnded = true
        if let waiter = frameWaiter {
            frameWaiter = nil
            waiter.resume(returning: nil)
        }
    }

    func resumeWriters() {
        let waiters = writabilityWaiters
        writabilityWaiters = []
        for w in waiters { w.resume() }
    }
}
