import Synchronization
import TNotesCLIRender
import TNotesClient
import TNotesCore

#if canImport(Glibc)
import Glibc
#endif

/// The signal the view was sent (SIGINT, SIGTERM), or 0; set by the handler, read by the loop.
private let pendingSignal = Atomic<Int32>(0)
/// Set by SIGWINCH: the next frame measures the terminal again.
private let resized = Atomic<Bool>(false)

/// `tnotes record` on a terminal (contract §8.2): the clock, a level meter, the live transcript and a note
/// line, redrawn about ten times a second. One thread: it polls the keyboard with a 100 ms timeout and
/// drains the events that arrived on its own subscribed connection in between.
///
/// The terminal is always given back as it was: the view saves its termios state and restores it (and
/// leaves the alternate screen) on `q`, on Ctrl-C or SIGTERM, and on any error. Ctrl-C and SIGTERM leave
/// the recording running (the audio is the daemon's; `tnotes record stop` ends it); `q` stops it.
struct RecordingView {
    let commands: Session
    let events: Session
    var screen = RecordingScreen()

    /// Runs until `q` (0) or a signal (128 + its number).
    static func run(global: GlobalOptions, started: JSON, title: String) throws -> Int32 {
        var view = RecordingView(commands: Session(global), events: Session(global))
        view.screen.title = title
        view.apply(status: started)
        _ = try view.events.call(EventsSubscribe.self, .init(topics: [.recordingState, .recordingLevel, .transcriptPartial]))
        let terminal = Terminal()
        terminal.enter()
        defer { terminal.leave() }
        for sig in [SIGINT, SIGTERM] { signal(sig) { pendingSignal.store($0, ordering: .relaxed) } }
        signal(SIGWINCH) { _ in resized.store(true, ordering: .relaxed) }
        return try view.loop(terminal)
    }

    private mutating func loop(_ terminal: Terminal) throws -> Int32 {
        var size = terminal.size()
        var stopping = false
        while true {
            let sig = pendingSignal.load(ordering: .relaxed)
            if sig != 0 { return 128 + sig }
            if resized.exchange(false, ordering: .relaxed) { size = terminal.size() }
            terminal.draw(screen.lines(width: size.width, height: size.height, style: Style(enabled: true)))
            if stopping { return 0 }
            for key in terminal.readKeys(timeoutMilliseconds: 100) {
                if try handle(key) {
                    screen.state = "stopping"
                    terminal.draw(screen.lines(width: size.width, height: size.height, style: Style(enabled: true)))
                    let stopped = try commands.call(RecordingStop.self, NoParams())
                    apply(status: stopped)
                    stopping = true
                    break
                }
            }
            try drainEvents()
        }
    }

    /// One key; true when it asks to stop.
    private mutating func handle(_ key: Terminal.Key) throws -> Bool {
        switch key {
        case .text(let t):
            if screen.noteLine.isEmpty && t == "q" { return true }
            if screen.noteLine.isEmpty && t == "p" {
                let r = try? commands.call(screen.state == "paused" ? RecordingResume.name : RecordingPause.name)
                if let r { apply(status: r) }
                return false
            }
            screen.noteLine += t
        case .backspace:
            if !screen.noteLine.isEmpty { screen.noteLine.removeLast() }
        case .clearLine:
            screen.noteLine = ""
        case .enter:
            let text = screen.noteLine
            guard !text.allSatisfy(\.isWhitespace) else { return false }
            do {
                let note = LenientRecord<Note>(try commands.call(NoteAdd.self, .init(sermonId: screen.sermonId, text: text)))
                screen.notesAdded += 1
                screen.lastNote = "\(ClockTime.format(note.timestamp ?? 0)) \(text)"
                screen.message = nil
                screen.noteLine = ""
            } catch {
                screen.message = "note not added: \(error)"
            }
        }
        return false
    }

    private mutating func drainEvents() throws {
        let c = try events.connect()
        while true {
            let message: JSON
            do { message = try c.nextNotification(timeout: 0.001) } catch ConnectionError.timedOut { return }
            guard let e = LenientRecord<RPCNotification>(message).json(at: \.params) else { continue }
            switch LenientRecord<EventHead>(e).topic.flatMap(EventTopic.init(rawValue:)) {
            case .recordingLevel?:
                let level = LenientRecord<RecordingLevel>(e)
                screen.level = level.level ?? screen.level
                screen.elapsed = level.elapsed ?? screen.elapsed
            case .recordingState?:
                apply(status: e)
            case .transcriptPartial?:
                screen.transcript += (LenientRecord<TranscriptPartial>(e).list(\.segments) ?? []).compactMap(\.text)
                screen.transcript = Array(screen.transcript.suffix(200))
            default: break
            }
        }
    }

    private mutating func apply(status json: JSON) {
        let r = LenientRecord<RecordingStatus>(json)
        if let s = r.state { screen.state = s }
        if let id = r.sermonId { screen.sermonId = id }
        if let e = r.elapsed { screen.elapsed = e }
        if let l = r.level { screen.level = l }
        if let b = r.bytes { screen.bytes = b }
        if r.state == "stopped", let m = r.message, r.reason != "requested" {
            screen.message = m
        }
    }
}

/// The controlling terminal in the view's mode: no line editing, no echo, signals still delivered (Ctrl-C is
/// SIGINT), the alternate screen.
final class Terminal {
    enum Key: Equatable {
        case text(String)
        case backspace, enter, clearLine
    }

    private var saved = termios()
    private var entered = false
    private var pending: [UInt8] = []

    func enter() {
        guard tcgetattr(0, &saved) == 0 else { return }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        tcsetattr(0, TCSAFLUSH, &raw)
        entered = true
        write("\u{1B}[?1049h\u{1B}[?25l")
    }

    func leave() {
        guard entered else { return }
        entered = false
        write("\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(0, TCSAFLUSH, &saved)
    }

    deinit { leave() }

    func size() -> (width: Int, height: Int) {
        var w = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &w) == 0, w.ws_col > 0, w.ws_row > 0 else { return (80, 24) }
        return (Int(w.ws_col), Int(w.ws_row))
    }

    func draw(_ lines: [String]) {
        write("\u{1B}[H" + lines.joined(separator: "\u{1B}[K\r\n") + "\u{1B}[K\u{1B}[J")
    }

    private func write(_ s: String) {
        var bytes = Array(s.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; return }
            bytes = bytes.dropFirst(n)
        }
    }

    /// The keys typed within `timeoutMilliseconds` (none on timeout or a signal).
    func readKeys(timeoutMilliseconds: Int32) -> [Key] {
        var fds = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        guard poll(&fds, 1, timeoutMilliseconds) > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        guard n > 0 else { return [] }
        pending += buffer[0..<n]
        var keys: [Key] = []
        var i = 0
        while i < pending.count {
            let b = pending[i]
            switch b {
            case 0x0D, 0x0A: keys.append(.enter); i += 1
            case 0x7F, 0x08: keys.append(.backspace); i += 1
            case 0x15: keys.append(.clearLine); i += 1
            case 0x1B:
                // An escape sequence (arrows, function keys): skipped whole. ESC [ … final byte 0x40-0x7E.
                var j = i + 1
                if j < pending.count, pending[j] == UInt8(ascii: "[") || pending[j] == UInt8(ascii: "O") {
                    j += 1
                    while j < pending.count, !(0x40...0x7E).contains(pending[j]) { j += 1 }
                    if j >= pending.count { pending = Array(pending[i...]); return keys }
                    j += 1
                }
                i = j
            case 0..<0x20: i += 1
            default:
                // UTF-8: the whole character, or wait for the rest of it.
                let length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
                guard i + length <= pending.count else { pending = Array(pending[i...]); return keys }
                keys.append(.text(String(decoding: pending[i..<(i + length)], as: UTF8.self)))
                i += length
            }
        }
        pending = []
        return keys
    }
}
