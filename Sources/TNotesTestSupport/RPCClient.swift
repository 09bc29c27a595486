import Foundation
import TNotesClient
import TNotesCore

/// A JSON-RPC error answered by the daemon.
public struct RPCCallError: Error, CustomStringConvertible {
    public let code: Int
    public let message: String
    public let data: JSON?
    public var field: String? { data?["field"]?.stringValue }
    public var description: String { "RPC error \(code): \(message) \(data.map { $0.text } ?? "")" }
}

/// The tests' client of the daemon's socket: a thin wrapper over TNotesClient's `RPCConnection` (the one socket
/// client the CLI and the bench use too), with the tests' defaults (every read has a timeout) and their errors
/// (`RPCCallError`, `HarnessError`). Raw lines go out and come in byte for byte, as `socat` would send them.
/// Unchecked because: a client belongs to one test thread at a time (like a socket fd); its read buffer is
/// never shared.
public final class RPCClient: @unchecked Sendable {
    private let connection: RPCConnection

    /// The socket (for `shutdown(2)` in half-close tests).
    public var fd: Int32 { connection.fd }

    public init(path: String) throws {
        do { connection = try RPCConnection(path: path) } catch { throw HarnessError("\(error)") }
    }

    /// Sends raw bytes as they are.
    public func send(bytes: [UInt8]) throws {
        do { try connection.send(bytes: bytes) } catch { throw HarnessError("send: \(error)") }
    }

    public func send(line: String) throws { try send(bytes: Array((line + "\n").utf8)) }

    /// The next line from the daemon, or nil on timeout or end of stream.
    public func readLine(timeout: Double = 15) throws -> String? {
        do {
            return try connection.readLine(timeout: timeout).map { String(decoding: $0, as: UTF8.self) }
        } catch {
            switch error {
            case .closed, .io(_, "read", _): return nil
            default: throw HarnessError("\(error)")
            }
        }
    }

    /// True when the daemon closed the connection (EOF) within `timeout`.
    public func isClosedByPeer(timeout: Double = 10) -> Bool { connection.isClosedByPeer(timeout: timeout) }

    /// Sends one JSON text and reads one reply line, parsed.
    public func exchange(_ request: JSON, timeout: Double = 30) throws -> JSON {
        try exchange(raw: request.text, timeout: timeout)
    }

    public func exchange(raw: String, timeout: Double = 30) throws -> JSON {
        try send(line: raw)
        guard let line = try readLine(timeout: timeout) else { throw HarnessError("no reply to \(raw)") }
        return try JSON.parse(line)
    }

    /// Calls a method; returns its result or throws the RPC error. Event notifications that arrive before the
    /// reply are passed over.
    @discardableResult
    public func call(_ method: String, _ params: JSON? = nil, timeout: Double = 30) throws -> JSON {
        do {
            return try connection.call(method, params, timeout: timeout)
        } catch let e as RPCFailure {
            throw RPCCallError(code: e.code, message: e.message, data: e.data)
        } catch {
            throw HarnessError("\(method): \(error)")
        }
    }

    /// The RPC error a call must fail with (a harness error if it succeeds).
    public func callError(_ method: String, _ params: JSON? = nil) throws -> RPCCallError {
        do {
            let r = try call(method, params)
            throw HarnessError("\(method) succeeded but should have failed: \(r.text)")
        } catch let e as RPCCallError {
            return e
        }
    }
}
