import Hummingbird
import NIOCore

/// The server's request context: Hummingbird's core storage plus the peer's address, which the rate limit
/// keys requests without a token by (`/healthz`, public pages, pairing). `BasicRequestContext` keeps no address.
public struct ServerRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
