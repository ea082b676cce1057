import Gateway
import GatewayPostgres
import GatewaySQLite
import Logging
import PodiumOperations
import PodiumRuntime

await ServiceMain.run(label: "gateway") { logger in
    let settings = try GatewaySettings(reader: RuntimeSettings.environmentReader())
    if settings.runtime.developmentMode {
        logger.warning("development mode: generated secrets, not for production")
    }
    // The backend is chosen here: PostgreSQL when PODIUM_DATABASE_URL names a database, else SQLite.
    let openStorage = StorageBackend.choose(sqlite: GatewayStorage.sqlite) { database in
        try await GatewayStorage.postgres(database, logger: Logger(label: "podium.gateway"))
    }
    let gateway = try await Gateway(settings: settings, logger: logger, openStorage: openStorage)
    var services = gateway.services
    if let http = settings.httpAddress {
        services.append(gateway.part(named: "http front", running: GatewayHTTPFront(gateway: gateway, address: http)))
    }
    return ServiceMain.Process(services: services, probe: gateway)
}
