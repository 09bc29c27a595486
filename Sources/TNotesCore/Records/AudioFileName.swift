/// How a sermon's audio file is named in the data dir's `audio/` folder, by whoever writes it (an import, a
/// download) and by the sync engine's start-up sweep, which reads the names back to tell what each file is.
/// One rule in one place: an extension the writer kept and the sweep did not recognise would make the sweep
/// take a copy for a stranger's file.
public enum AudioFileName {
    /// Whether the last dot-component of a file's name is kept on its stored copy: at most 9 characters, never
    /// `download` (a partial download's suffix), and nothing that names a directory.
    public static func keepsExtension(_ component: Substring) -> Bool {
        !component.isEmpty && component.count <= 9 && !component.contains("/") && component != "download"
    }

    /// The extension, with its dot, that a stored copy of `fileName` carries ("" when none is kept): the
    /// decoders go by content, the extension only helps a person who looks.
    public static func storedExtension(of fileName: String) -> String {
        let parts = fileName.split(separator: ".")
        guard parts.count > 1, let last = parts.last, keepsExtension(last) else { return "" }
        return "." + last
    }
}
