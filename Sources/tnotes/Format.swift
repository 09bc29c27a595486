import TNotesCLIRender

#if canImport(Glibc)
import Glibc
#endif

// The renderers (Style, Format, Table, Render, SermonExport, ProgressText) are in TNotesCLIRender, pure
// functions a fuzzer calls too; what depends on the process (is standard output a terminal?) stays here.

extension Style {
    /// Styling for standard output: only on a terminal and never with NO_COLOR set (https://no-color.org).
    static let stdout = Style(enabled: isatty(STDOUT_FILENO) == 1 && getenv("NO_COLOR") == nil)
}
