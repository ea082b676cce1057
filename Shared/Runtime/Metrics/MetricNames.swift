/// Every metric Podium's processes export, by its Prometheus name (docs/OPERATIONS.md lists
/// them with their labels). Names follow Prometheus's conventions: base units, `_total` for
/// counters, `_seconds` for durations. Label values come from bounded sets only: request types
/// the process knows (others are counted as `unknown`), transports, error codes, stream and
/// database names; never a player, session or request id.
public enum MetricNames {
    // Every process.
    public static let ready = "podium_ready"
    public static let databaseSize = "podium_database_size_bytes"
    public static let residentMemory = "process_resident_memory_bytes"
    public static let cpuSeconds = "process_cpu_seconds_total"
    public static let startTime = "process_start_time_seconds"

    // The gateway.
    public static let gatewayRequests = "podium_gateway_requests_total"
    public static let gatewayRequestDuration = "podium_gateway_request_duration_seconds"
    public static let eventsAccepted = "podium_events_accepted_total"
    public static let eventLogHead = "podium_event_log_head"
    public static let limitRefusals = "podium_limit_refusals_total"
    public static let requestsInFlight = "podium_requests_in_flight"
    public static let sessionsCached = "podium_sessions_cached"
    public static let websocketConnections = "podium_websocket_connections"
    public static let notificationsForwarded = "podium_notifications_forwarded_total"
    public static let socketInboxDepth = "podium_socket_inbox_depth"
    /// Connections to a bus endpoint refused (label `reason`: `unknown_key`, `handshake`).
    public static let busConnectionsRefused = "podium_bus_connections_refused_total"

    // Group commit (the gateway's event log, the services' batches).
    public static let groupCommitBatchSize = "podium_group_commit_batch_size"
    public static let groupCommitDuration = "podium_group_commit_duration_seconds"

    // The services.
    public static let serviceRequests = "podium_service_requests_total"
    public static let serviceRequestDuration = "podium_service_request_duration_seconds"
    public static let busMessagesReceived = "podium_bus_messages_received_total"
    public static let busGapsDetected = "podium_bus_gaps_detected_total"
    public static let busGapsRepaired = "podium_bus_gaps_repaired_total"
    public static let streamPosition = "podium_stream_position"
    public static let streamHead = "podium_stream_head"
    public static let streamLag = "podium_stream_lag"
    /// Partitions of its service's data this instance owns (0: it stands by).
    public static let partitionsOwned = "podium_partitions_owned"
    /// Requests of a partitioned service that carried a partition key, by service, partition and
    /// outcome (`served` by this instance, `refused`: it does not own the partition).
    public static let partitionRequests = "podium_partition_requests_total"
    /// Rows deleted by retention, by table (`event`, `outbox`, `receipt`).
    public static let retentionPruned = "podium_retention_pruned_total"
    /// The oldest sequence a stream still holds (its producer's view).
    public static let streamFirst = "podium_stream_first"
    /// Messages a follower found pruned before it had read them (it recovered from the state).
    public static let streamMessagesLost = "podium_stream_messages_lost_total"

    /// Buckets of every duration histogram, in seconds.
    public static let durationBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10),
        .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500),
        .seconds(5),
    ]
    /// Buckets of the batch size histograms.
    public static let batchBuckets: [Double] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000]

    /// The request type as a label value: the type when the process knows it, else `unknown`.
    public static func typeLabel(_ type: String, known: Bool) -> String {
        known ? type : "unknown"
    }
}
