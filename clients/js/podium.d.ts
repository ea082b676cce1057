// Types of podium.js, Podium's browser client (an ES module without dependencies).
// The wire protocol is docs/PROTOCOL.md: section 20 (HTTP) and 21 (WebSocket).

/** A reply payload or request payload: plain JSON. */
export type JSON = null | boolean | number | string | JSON[] | { [key: string]: JSON };

/** What login, register, device login and refresh return (PROTOCOL 8.2). */
export interface SessionGrant {
  playerId: string;
  sessionId: string;
  sessionToken: string;
  sessionExpiresAt: number;
  refreshToken: string;
  refreshExpiresAt: number;
  displayName?: string;
  username?: string;
  created?: boolean;
}

/** A notification as pushed on the WebSocket (PROTOCOL 14.1). */
export interface PodiumNotification {
  type: "notification";
  id: string;
  gameId?: string;
  playerId?: string;
  timestamp: number;
  payload: { kind: string; message: string; details?: { [key: string]: JSON } };
}

/** An error reply: the stable `code` of PROTOCOL 13, the HTTP status when it came over HTTP. */
export class PodiumError extends Error {
  readonly code: string;
  readonly status?: number;
  readonly field?: string;
  readonly retryAfterMilliseconds?: number;
  readonly requestId?: string;
}

export interface PodiumOptions {
  /** The gateway's HTTP front, e.g. "http://127.0.0.1:8080". */
  baseUrl: string;
  /** A stored session to start from (from `session` after an earlier login). */
  session?: SessionGrant | null;
  /** Called whenever the session changes (login, refresh, logout → null): store it. */
  onSession?: (session: SessionGrant | null) => void;
  /** How long one HTTP attempt may take, in ms (default 10000). */
  timeoutMs?: number;
  /** Attempts for a request that timed out or got 503/504 or a network error, same idempotency key (default 3). */
  attempts?: number;
}

export interface RequestOptions {
  gameId?: string;
  playerId?: string;
  payload?: { [key: string]: JSON };
  /** Defaults to a fresh UUID; resends of this request reuse it (PROTOCOL 4.2). */
  idempotencyKey?: string;
}

export interface ConnectOptions {
  /** The games whose notifications to receive (1-20). */
  games: string[];
  /** Longest wait between reconnection attempts, in ms (default 30000). */
  maxBackoffMs?: number;
}

/**
 * The client. Events (an EventTarget):
 * - "notification": CustomEvent<PodiumNotification>, each notification pushed on the socket;
 * - "open": the socket is connected and its hello was answered (after every reconnect too);
 * - "close": CustomEvent<{ code: number; reason: string; willReconnect: boolean }>; code 4001
 *   (the session token expired: the client refreshes it and reconnects at once) or 4003 (the
 *   session was logged out or revoked: no reconnection; log in again);
 * - "session": CustomEvent<SessionGrant | null>, as onSession.
 */
export class Podium extends EventTarget {
  constructor(options: PodiumOptions);
  readonly session: SessionGrant | null;
  readonly playerId: string | null;

  register(username: string, password: string, displayName?: string): Promise<SessionGrant>;
  login(username: string, password: string): Promise<SessionGrant>;
  deviceLogin(deviceId: string, displayName?: string): Promise<SessionGrant>;
  /** Renews the session with the refresh token; done automatically on token_expired. */
  refresh(): Promise<SessionGrant>;
  logout(): Promise<void>;

  /** Any request type over HTTP (POST /v1/call/{type}); resolves to the reply payload. */
  request<Reply = any>(type: string, options?: RequestOptions): Promise<Reply>;

  // Shortcuts over `request` for what games call most.
  publish(gameId: string, name: string, value?: number, attributes?: { [key: string]: string }): Promise<any>;
  submitScore(gameId: string, boardId: string, value: number, extra?: { [key: string]: JSON }): Promise<any>;
  top(gameId: string, boardId: string, options?: { limit?: number; scope?: string; friendsOnly?: boolean }): Promise<any>;
  achievements(gameId: string): Promise<any>;
  friends(): Promise<any>;
  /** With `gameId`, sent from that game: the request reaches the other player's inbox there. */
  requestFriend(playerId: string, gameId?: string): Promise<any>;
  acceptFriend(playerId: string, gameId?: string): Promise<any>;
  challenge(gameId: string, boardId: string, receivers: string[], message?: string): Promise<any>;
  /** The challenge inbox, newest first; with `after` (an item's `position`), the later items oldest first. */
  inbox(gameId: string, options?: boolean | { unreadOnly?: boolean; after?: number }): Promise<any>;
  /** Every kept notification (PROTOCOL 14.5): newest first, `before` pages on, `after` catches up oldest first. */
  notifications(
    gameId: string, options?: { after?: number; before?: number; unreadOnly?: boolean; kinds?: string[]; limit?: number }
  ): Promise<any>;
  unreadNotifications(gameId: string): Promise<any>;
  markNotificationsRead(gameId: string, ids: string[] | "all"): Promise<any>;
  deleteNotifications(gameId: string, ids: string[]): Promise<any>;
  /** Invite codes (PROTOCOL 9.5, 12.11). */
  createInvite(expiresInMilliseconds?: number): Promise<any>;
  redeemInvite(code: string, gameId?: string): Promise<any>;
  inviteToChallenge(gameId: string, challengeId: string): Promise<any>;
  joinChallenge(gameId: string, code: string): Promise<any>;

  /** Opens the WebSocket, says hello with the session, reconnects with backoff until `disconnect`. */
  connect(options: ConnectOptions): Promise<void>;
  /** Sends a request on the socket; resolves to the reply payload (matched by id). */
  send<Reply = any>(type: string, options?: RequestOptions): Promise<Reply>;
  disconnect(): void;
  readonly connected: boolean;
}

/** A fresh request id / idempotency key. */
export function newRequestId(): string;
