/// The OpenAPI 3.1 description of every route, served at GET /openapi.json so that clients and tools
/// (scripts/check-openapi.sh) read the API from the server itself.
///
/// The document is `openapi.json` beside this file, the one copy of it. The EmbedOpenAPI build-tool plugin
/// (Plugins/EmbedOpenAPI) compiles its text into this module as `OpenAPIDocument.json`, byte for byte: served as
/// is, and carried by the binary itself (no resource bundle to find at run time, which the static-runtime build
/// in the Debian package would not have). `ServerAPIDescriptionTests` holds it to the router (every served path
/// and method documented, every documented one served) and its record schemas to `RecordSchema`.
enum OpenAPIDocument {}
