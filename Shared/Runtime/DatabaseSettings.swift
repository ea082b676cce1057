import Foundation

/// Where a process keeps its data when it is not in SQLite files: a PostgreSQL server, from
/// `PODIUM_DATABASE_URL` (docs/DEPLOYMENT.md, "PostgreSQL").
///
/// | variable | default | meaning |
/// |---|---|---|
/// | `PODIUM_DATABASE_URL` | unset: SQLite under `PODIUM_DATA` | `postgres://user:password@host:port/database` |
/// | `PODIUM_DATABASE_SCHEMA` | `podium_<service>` | the schema the service's tables live in |
/// | `PODIUM_DATABASE_POOL_SIZE` | `8` | most connections the process opens (1-100) |
/// | `PODIUM_DATABASE_STATEMENT_TIMEOUT_MS` | `10000` | a statement running longer is cancelled (100-600000) |
/// | `PODIUM_DATABASE_CONNECT_TIMEOUT_MS` | `2000` | a connection not had within this fails the request with `storage_unavailable` (100-60000); below the gateway's request timeout |
///
/// The URL may carry `?sslmode=disable|prefer|require` (default `prefer`). Every service may
/// share one database (each in its own schema) or have a database of its own.
public struct DatabaseSettings: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var schema: String
    public var tls: TLSMode
    public var poolSize: Int
    public var statementTimeoutMilliseconds: Int
    public var connectTimeoutMilliseconds: Int

    public enum TLSMode: String, Sendable {
        case disable, prefer, require
    }

    public init(
        host: String, port: Int = 5432, username: String, password: String? = nil, database: String, schema: String,
        tls: TLSMode = .prefer, poolSize: Int = 8, statementTimeoutMilliseconds: Int = 10_000,
        connectTimeoutMilliseconds: Int = 2000
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.schema = schema
        self.tls = tls
        self.poolSize = poolSize
        self.statementTimeoutMilliseconds = statementTimeoutMilliseconds
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
    }

    /// Parses `postgres://user:password@host:port/database?sslmode=…`; `schema` names the schema.
    public init(url: String, schema: String) throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme,
            ["postgres", "postgresql"].contains(scheme.lowercased())
        else {
            throw ConfigurationProblem("PODIUM_DATABASE_URL must look like postgres://user:password@host:5432/database")
        }
        guard let host = components.host, !host.isEmpty else {
            throw ConfigurationProblem("PODIUM_DATABASE_URL has no host")
        }
        guard let username = components.user, !username.isEmpty else {
            throw ConfigurationProblem("PODIUM_DATABASE_URL has no user name")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw ConfigurationProblem("PODIUM_DATABASE_URL has no database name (…/database)")
        }
        guard Self.isIdentifier(schema) else {
            throw ConfigurationProblem(
                "PODIUM_DATABASE_SCHEMA must be 1-63 lowercase letters, digits and _, starting with a letter")
        }
        var tls = TLSMode.prefer
        if let mode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value {
            guard let parsed = TLSMode(rawValue: mode) else {
                throw ConfigurationProblem("PODIUM_DATABASE_URL: sslmode must be disable, prefer or require")
            }
            tls = parsed
        }
        self.init(
            host: host, port: components.port ?? 5432, username: username.removingPercentEncoding ?? username,
            password: components.password.map { $0.removingPercentEncoding ?? $0 }, database: database, schema: schema,
            tls: tls)
    }

    /// Where the data is, for health and logs: the URL without the password.
    public var location: String { "postgresql://\(username)@\(host):\(port)/\(database)?schema=\(schema)" }

    /// A PostgreSQL identifier Podium accepts unquoted: lowercase letters, digits, `_`.
    public static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first), name.utf8.count <= 63 else {
            return false
        }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }
}
