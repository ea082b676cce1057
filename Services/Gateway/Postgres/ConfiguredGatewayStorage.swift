import Gateway
import GatewaySQLite
import Logging
import PodiumRuntime

extension GatewayStorage {
    /// PostgreSQL when the settings name a database, else SQLite files under the data directory.
    public static let configured: GatewayStorageOpener = { settings in
        if let database = settings.database {
            return try await postgres(database, logger: Logger(label: "podium.gateway"))
        }
        return try await GatewayStorage.sqlite(settings)
    }
}
