import Gateway
import PodiumRuntime

await ServiceMain.run(label: "gateway") { logger in
    let settings = try GatewaySettings(reader: RuntimeSettings.environmentReader())
    if settings.runtime.developmentMode {
        logger.warning("development mode: generated secrets, not for production")
    }
    return [try await Gateway(settings: settings, logger: logger)]
}
