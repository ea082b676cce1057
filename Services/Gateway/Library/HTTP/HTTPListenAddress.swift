import PodiumRuntime

/// Where the HTTP front listens: `PODIUM_HTTP`, `host:port` (`[::1]:8080` for IPv6), or `off`.
public typealias HTTPListenAddress = ListenAddress
