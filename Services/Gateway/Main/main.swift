import Gateway
import GatewayPostgres
import PodiumOperations
import PodiumRuntime

await ServiceMain.run(label: "gateway") { logger in
    let settings = try GatewaySettings(reader: RuntimeSettings.environmentReader())
    if settings.runtime.developmentMode {
        logger.warning("development mode: generated secrets, not for production")
    }
    let gateway = try await Gateway(settings: settings, logger: logger, openStorage: GatewayStorage.configured)
    var services = gateway.services
    if let http = settings.httpAddress { services.append(GatewayHTTPFront(gateway: gateway, address: http)) }
    return ServiceMain.Process(services: services, probe: gateway)
}
