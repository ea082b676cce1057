import Gateway
import PodiumRuntime

await ServiceMain.run(label: "gateway") { logger in
    let settings = try GatewaySettings(reader: RuntimeSettings.environmentReader())
    if settings.runtime.developmentMode {
        logger.warning("development mode: generated secrets, not for production")
    }
    let gateway = try await Gateway(settings: settings, logger: logger)
    guard let http = settings.httpAddress else { return gateway.services }
    return gateway.services + [GatewayHTTPFront(gateway: gateway, address: http)]
}
