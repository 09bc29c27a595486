import NIOCore

/// One frame of the line protocol: a complete line (without its terminator), or the news that the peer
/// sent more than the limit without a newline.
public enum LineFrame: Sendable {
    case line(ByteBuffer)
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
        if overflowed {
            buffer.moveReaderIndex(to: buffer.writerIndex)
            return .needMoreData
        }
        let view = buffer.readableBytesView
        if let nl = view[(view.startIndex + scanned)...].firstIndex(of: UInt8(ascii: "\n")) {
            let length = nl - view.startIndex
            scanned = 0
            if length > maxLineBytes {
                overflowed = true
                buffer.moveReaderIndex(to: buffer.writerIndex)
                context.fireChannelRead(wrapInboundOut(.tooLong))
                return .needMoreData
            }
            var line = buffer.readSlice(length: length)!
            buffer.moveReaderIndex(forwardBy: 1)
            if line.readableBytesView.last == UInt8(ascii: "\r") {
                line = line.getSlice(at: line.readerIndex, length: line.readableBytes - 1)!
            }
            context.fireChannelRead(wrapInboundOut(.line(line)))
            return .continue
        }
        scanned = view.count
        if view.count > maxLineBytes {
            overflowed = true
            buffer.moveReaderIndex(to: buffer.writerIndex)
            context.fireChannelRead(wrapInboundOut(.tooLong))
        }
        return .needMoreData
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        // A last line without its newline is still a request (e.g. `printf '{…}' | nc -U`).
        while try decode(context: context, buffer: &buffer) == .continue {}
        if !overflowed && buffer.readableBytes > 0 {
            let line = buffer.readSlice(length: buffer.readableBytes)!
            context.fireChannelRead(wrapInboundOut(.line(line)))
        }
        return .needMoreData
    }
}
