import Foundation
import PackagePlugin

/// Compiles `docs/openapi.json` (the HTTP API's reference, beside its prose in docs/http-api.md) into the
/// target: a Swift source, generated at build time by `tnotes-embed-text`, declares `OpenAPIDocument.json` as the file's text byte for byte. The file is the one copy of the document
/// (edited, diffed and validated as JSON); the binary still carries it, with no resource bundle to find at run
/// time (the Debian package's static build has none beside the binary). Rebuilt whenever the file changes.
@main
struct EmbedOpenAPI: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        let input = context.package.directoryURL.appending(path: "docs/openapi.json")
        let output = context.pluginWorkDirectoryURL.appending(path: "OpenAPIDocument+JSON.swift")
        return [
            .buildCommand(displayName: "Embedding docs/openapi.json into \(target.name)",
                          executable: try context.tool(named: "tnotes-embed-text").url,
                          arguments: [input.path(percentEncoded: false), output.path(percentEncoded: false),
                                      "OpenAPIDocument", "json"],
                          inputFiles: [input], outputFiles: [output]),
        ]
    }
}
