extension MetricNames {
    /// The `# HELP` text of every metric, by name (what docs/OPERATIONS.md says of it, shorter).
    /// swift-metrics has no help text; the metrics factory (``HelpedMetricsFactory`` in
    /// PodiumOperations) takes it from here when a metric is first made.
    public static let help: [String: String] = [
        ready: "1 when /health/ready would answer 200, else 0",
        databaseSize: "Bytes on disk of each database the process owns (SQLite file and WAL, or PostgreSQL schema)",
        residentMemory: "Resident memory size in bytes",
        cpuSeconds: "Total user and system CPU time spent in seconds",
        startTime: "Start time of the process since the Unix epoch in seconds",
        gatewayRequests: "Requests the gateway answered, by request type, transport and result code",
        gatewayRequestDuration: "Seconds from a request entering the gateway's pipeline to its reply",
        eventsAccepted: "Game events written to the event log (resent duplicates not counted)",
        eventLogHead: "Sequence of the last event in the event log",
        limitRefusals: "Requests and messages refused by a limit, by limit",
        requestsInFlight: "Requests forwarded to services and not answered yet",
        sessionsCached: "Verified session tokens in the gateway's cache",
        websocketConnections: "Open WebSocket connections",
        notificationsForwarded: "Notifications forwarded to subscribers (ZeroMQ and WebSocket)",
        socketInboxDepth: "Messages read from a ZeroMQ socket and not yet taken, by socket",
        busConnectionsRefused: "Connections to a bus endpoint refused by CURVE, by reason",
        groupCommitBatchSize: "Items per group-commit transaction, by service and queue",
        groupCommitDuration: "Seconds per group-commit transaction, by service and queue",
        serviceRequests: "Requests a service answered, by service, request type and result code",
        serviceRequestDuration: "Seconds a service's handler took, by service and request type",
        busMessagesReceived: "Bus messages received, by service",
        busGapsDetected: "Bus messages found missing by their sequence numbers, by service",
        busGapsRepaired: "Messages a stream follower applied from the stream instead of the bus",
        streamPosition: "Last message of a followed stream the service applied",
        streamHead: "Last message the followed stream holds, as last seen",
        streamLag: "Messages a stream follower is behind the stream's head",
        partitionsOwned: "Partitions of the service's data this instance holds",
        partitionRequests: "Requests with a partition key, by service, partition and outcome (served or refused)",
        retentionPruned: "Rows deleted by retention, by service and table",
        streamFirst: "Oldest message a stream's owner still holds",
        streamMessagesLost: "Messages retention pruned before the follower read them, by service and stream",
    ]

    /// The help text of `name`; a name missing from ``help`` says so (a test scrapes every
    /// process and fails on it).
    public static func help(for name: String) -> String {
        help[name] ?? "\(name) (not described: add it to MetricNames.help)"
    }
}
