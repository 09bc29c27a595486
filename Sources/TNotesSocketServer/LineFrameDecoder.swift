import NIOCore

/// One frame of the line protocol: the complete lines (without terminators) that arrived together, or
/// the news that the peer sent more than the limit without a newline.
///
/// Lines come in batches so that a client that pipelines gets its answers in as few writes as possible:
/// the server answers a batch's lines in order and writes the answers together.
public enum LineFrame: Sendable {
    case lines([ByteBuffer])
    case tooLong
}

/// Splits the byte stream at `\n` (a preceding `\r` is dropped). NIO's LineBasedFrameDecoder has no
/// bound, so a client could grow our buffer without end; this one stops at `maxLineBytes`.
public struct LineFrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = LineFrame

    let maxLineBytes: Int
    /// How far the buffer has been searched for a newline already (so a long line is scanned once).
    var scanned = 0
    var overflowed = false

    public init(maxLineBytes: Int) { self.maxLineBytes = maxLineBytes }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        var lines: [ByteBuffer] = []
        defer { if !lines.isEmpty { context.fireChannelRead(wrapInboundOut(.lines(lines))) } }
        while true {
            if overflowed {
                buffer.moveReaderIndex(to: buffer.writerIndex)
                return .needMoreData
            }
            let view = buffer.readableBytesView
            guard let nl = view[(view.startIndex + scanned)...].firstIndex(of: UInt8(ascii: "\n")) else {
                scanned = view.count
                if view.count > maxLineBytes {
                    overflowed = true
                    buffer.moveReaderIndex(to: buffer.writerIndex)
                    flush(&lines, context: context)
                    context.fireChannelRead(wrapInboundOut(.tooLong))
                }
                return .needMoreData
            }
            let length = nl - view.startIndex
            scanned = 0
            if length > maxLineBytes {
                overflowed = true
                buffer.moveReaderIndex(to: buffer.writerIndex)
                flush(&lines, context: context)
                context.fireChannelRead(wrapInboundOut(.tooLong))
                return .needMoreData
            }
            var line = buffer.readSlice(length: length)!
            buffer.moveReaderIndex(forwardBy: 1)
            if line.readableBytesView.last == UInt8(ascii: "\r") {
                line = line.getSlice(at: line.readerIndex, length: line.readableBytes - 1)!
            }
            lines.append(line)
        }
    }

    /// Sends the lines before an overflow ahead of the overflow itself (they are answered first).
    private func flush(_ lines: inout [ByteBuffer], context: ChannelHandlerContext) {
        if !lines.isEmpty { context.fireChannelRead(wrapInboundOut(.lines(lines))) }
        lines = []
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        // A last line without its newline is still a request (e.g. `printf '{…}' | nc -U`).
        _ = try decode(context: context, buffer: &buffer)
        if !overflowed && buffer.readableBytes > 0 {
            let line = buffer.readSlice(length: buffer.readableBytes)!
            context.fireChannelRead(wrapInboundOut(.lines([line])))
        }
        return .needMoreData
    }
}
