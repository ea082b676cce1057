// Podium's browser client: an ES module without dependencies, for games in a browser (WebGL,
// HTML5) or anything with fetch and WebSocket. Types: podium.d.ts. Protocol: docs/PROTOCOL.md
// sections 20 (HTTP) and 21 (WebSocket).
//
//   import { Podium } from "./podium.js";
//   const podium = new Podium({ baseUrl: "https://podium.example.com", onSession: s => save(s) });
//   await podium.deviceLogin(deviceId);
//   podium.addEventListener("notification", e => show(e.detail));
//   await podium.connect({ games: ["dash"] });
//   await podium.submitScore("dash", "com.example.dash.highscore", 1200);

/** A fresh request id, used as the idempotency key of one request and all its resends. */
export function newRequestId() {
  if (globalThis.crypto && typeof globalThis.crypto.randomUUID === "function") {
    return globalThis.crypto.randomUUID();
  }
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** An error reply, with Podium's stable code (PROTOCOL 13). */
export class PodiumError extends Error {
  constructor(code, message, extra = {}) {
    super(message);
    this.name = "PodiumError";
    this.code = code;
    this.status = extra.status;
    this.field = extra.field;
    this.retryAfterMilliseconds = extra.retryAfterMilliseconds;
    this.requestId = extra.requestId;
  }
}

// Codes after which the same request may be sent again with the same idempotency key.
const RETRYABLE = new Set(["service_unavailable", "service_timeout", "overloaded", "storage_unavailable", "rebuilding", "network", "timeout"]);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class Podium extends EventTarget {
  constructor(options) {
    super();
    if (!options || !options.baseUrl) throw new TypeError("Podium needs { baseUrl }");
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.timeoutMs = options.timeoutMs ?? 10000;
    this.attempts = Math.max(1, options.attempts ?? 3);
    this._onSession = options.onSession;
    this._session = options.session ?? null;
    this._socket = null;
    this._socketWanted = null;
    this._pending = new Map();
    this._backoff = 0;
    this._refreshing = null;
  }

  /** `/v1/games/<gameId>` for a game, `/v1` without one. */
  static _gamePrefix(gameId) { return gameId ? `/v1/games/${encodeURIComponent(gameId)}` : "/v1"; }

  get session() { return this._session; }
  get playerId() { return this._session ? this._session.playerId : null; }
  get connected() { return !!this._socket && this._socket.readyState === WebSocket.OPEN && this._helloDone === true; }

  _setSession(session) {
    this._session = session;
    if (this._onSession) this._onSession(session);
    this.dispatchEvent(new CustomEvent("session", { detail: session }));
  }

  // ---- HTTP ------------------------------------------------------------------------------------

  /** One HTTP exchange with resends on timeouts and retryable errors, same idempotency key. */
  async _http(method, path, { body, query, idempotencyKey, auth = true } = {}) {
    const key = idempotencyKey ?? newRequestId();
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      const headers = { "Idempotency-Key": key };
      if (body !== undefined) headers["Content-Type"] = "application/json";
      if (auth && this._session) headers.Authorization = `Bearer ${this._session.sessionToken}`;
      let response;
      let error;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), this.timeoutMs);
      try {
        response = await fetch(url, {
          method, headers, signal: controller.signal,
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (e) {
        error = new PodiumError(controller.signal.aborted ? "timeout" : "network",
          controller.signal.aborted ? `no answer within ${this.timeoutMs} ms` : `could not reach ${this.baseUrl}: ${e.message}`,
          { requestId: key });
      } finally {
        clearTimeout(timer);
      }
      if (response) {
        const text = await response.text();
        let json = null;
        try { json = text ? JSON.parse(text) : null; } catch { json = null; }
        if (response.ok) return json;
        error = new PodiumError(json?.code ?? "http_" + response.status, json?.detail ?? (text || response.statusText), {
          status: response.status, field: json?.field, retryAfterMilliseconds: json?.retryAfterMilliseconds,
          requestId: json?.requestId ?? key,
        });
      }
      // An expired session: renew it once and send again (same key).
      if (error.code === "token_expired" && auth && this._session && !refreshed) {
        refreshed = true;
        await this.refresh();
        continue;
      }
      if (!RETRYABLE.has(error.code) || attempt >= this.attempts) throw error;
      const wait = error.retryAfterMilliseconds ?? Math.min(4000, 250 * 2 ** (attempt - 1));
      await sleep(wait + Math.random() * 100);
    }
  }

  /** Any request type (POST /v1/call/{type}); resolves to the reply's payload. */
  request(type, options = {}) {
    const body = {};
    if (options.gameId !== undefined) body.gameId = options.gameId;
    if (options.playerId !== undefined) body.playerId = options.playerId;
    body.payload = options.payload ?? {};
    return this._http("POST", `/v1/call/${encodeURIComponent(type)}`, { body, idempotencyKey: options.idempotencyKey });
  }

  async register(username, password, displayName) {
    const body = { username, password };
    if (displayName) body.displayName = displayName;
    const grant = await this._http("POST", "/v1/accounts", { body, auth: false });
    this._setSession(grant);
    return grant;
  }

  async login(username, password) {
    const grant = await this._http("POST", "/v1/sessions", { body: { username, password }, auth: false });
    this._setSession(grant);
    return grant;
  }

  async deviceLogin(deviceId, displayName) {
    const body = { deviceId };
    if (displayName) body.displayName = displayName;
    const grant = await this._http("POST", "/v1/sessions/device", { body, auth: false });
    this._setSession(grant);
    return grant;
  }

  /** Renews the session; concurrent callers share one renewal. */
  refresh() {
    if (!this._session) return Promise.reject(new PodiumError("unauthenticated", "not logged in"));
    if (!this._refreshing) {
      const refreshToken = this._session.refreshToken;
      this._refreshing = this._http("POST", "/v1/sessions/refresh", { body: { refreshToken }, auth: false })
        .then((grant) => { this._setSession({ ...this._session, ...grant }); return this._session; })
        .finally(() => { this._refreshing = null; });
    }
    return this._refreshing;
  }

  async logout() {
    this.disconnect();
    try {
      if (this._session) await this._http("DELETE", "/v1/sessions/current", { body: {} });
    } finally {
      this._setSession(null);
    }
  }

  /** Deletes the player's account for good (PROTOCOL 8.14): `password` for an account that has
   *  one; a device account needs none. The session ends and the socket closes with 4005. */
  async deleteAccount(password) {
    const body = { confirm: true };
    if (password) body.password = password;
    const receipt = await this._http("POST", "/v1/me/delete", { body });
    this.disconnect();
    this._setSession(null);
    return receipt;
  }

  /** Everything Podium holds about the player, as one JSON document (PROTOCOL 8.15). */
  exportAccount() { return this._http("GET", "/v1/me/export"); }

  publish(gameId, name, value, attributes) {
    const body = { name };
    if (value !== undefined) body.value = value;
    if (attributes) body.attributes = attributes;
    return this._http("POST", `/v1/games/${encodeURIComponent(gameId)}/events`, { body });
  }

  submitScore(gameId, boardId, value, extra = {}) {
    return this._http("POST", `/v1/games/${encodeURIComponent(gameId)}/leaderboards/${encodeURIComponent(boardId)}/scores`,
      { body: { ...extra, value } });
  }

  top(gameId, boardId, options = {}) {
    return this._http("GET", `/v1/games/${encodeURIComponent(gameId)}/leaderboards/${encodeURIComponent(boardId)}/top`,
      { query: options });
  }

  achievements(gameId) { return this._http("GET", `/v1/games/${encodeURIComponent(gameId)}/achievements`); }
  friends() { return this._http("GET", "/v1/friends"); }
  /** With `gameId`, sent from that game: the request or accept reaches the other player's inbox there. */
  requestFriend(playerId, gameId) { return this._http("POST", `${Podium._gamePrefix(gameId)}/friends/${encodeURIComponent(playerId)}/request`, { body: {} }); }
  acceptFriend(playerId, gameId) { return this._http("POST", `${Podium._gamePrefix(gameId)}/friends/${encodeURIComponent(playerId)}/accept`, { body: {} }); }

  challenge(gameId, boardId, receivers, message) {
    const body = { kind: "score", boardId, receivers };
    if (message) body.message = message;
    return this._http("POST", `/v1/games/${encodeURIComponent(gameId)}/challenges`, { body });
  }

  /** The challenge inbox; `{ after: position }` gives the items missed since, oldest first. */
  inbox(gameId, options = {}) {
    const query = typeof options === "boolean" ? { unreadOnly: options } : { unreadOnly: options.unreadOnly, after: options.after };
    return this._http("GET", `/v1/games/${encodeURIComponent(gameId)}/challenges/inbox`, { query });
  }

  /**
   * Every notification kept for the player in a game (PROTOCOL 14.5), newest first: `{ before }`
   * pages on (a page's `nextBefore`), `{ after }` gives the items missed since, oldest first;
   * also `unreadOnly`, `kinds` (an array) and `limit` (1-200).
   */
  notifications(gameId, options = {}) {
    const query = { ...options };
    if (Array.isArray(query.kinds)) query.kinds = query.kinds.join(",");
    return this._http("GET", `/v1/games/${encodeURIComponent(gameId)}/inbox/items`, { query });
  }
  unreadNotifications(gameId) { return this._http("GET", `/v1/games/${encodeURIComponent(gameId)}/inbox/unread`); }
  /** Marks kept notifications read: an array of ids, or `"all"`. */
  markNotificationsRead(gameId, ids) {
    const body = ids === "all" ? { all: true } : { ids };
    return this._http("POST", `/v1/games/${encodeURIComponent(gameId)}/inbox/read`, { body });
  }
  deleteNotifications(gameId, ids) {
    return this._http("POST", `/v1/games/${encodeURIComponent(gameId)}/inbox/delete`, { body: { ids } });
  }

  /** A friend code to share (PROTOCOL 9.5); whoever redeems it sends the player a friend request. */
  createInvite(expiresInMilliseconds) {
    return this._http("POST", "/v1/invites", { body: expiresInMilliseconds ? { expiresInMilliseconds } : {} });
  }
  redeemInvite(code, gameId) { return this._http("POST", `${Podium._gamePrefix(gameId)}/invites/redeem`, { body: { code } }); }
  /** A code that lets others join a running time-boxed challenge (PROTOCOL 12.11), and joining with one. */
  inviteToChallenge(gameId, challengeId) {
    return this._http("POST", `/v1/games/${encodeURIComponent(gameId)}/challenges/${encodeURIComponent(challengeId)}/invites`, { body: {} });
  }
  joinChallenge(gameId, code) {
    return this._http("POST", `/v1/games/${encodeURIComponent(gameId)}/challenges/join`, { body: { code } });
  }

  // ---- WebSocket ---------------------------------------------------------------------------------

  /** Opens the socket and keeps it open (reconnecting with backoff) until disconnect(). */
  connect(options) {
    if (!this._session) return Promise.reject(new PodiumError("unauthenticated", "log in before connecting"));
    if (!options || !Array.isArray(options.games) || options.games.length === 0) {
      return Promise.reject(new TypeError("connect needs { games: [gameId, …] }"));
    }
    this._socketWanted = { games: options.games.slice(), maxBackoffMs: options.maxBackoffMs ?? 30000 };
    return this._open();
  }

  _open() {
    const wanted = this._socketWanted;
    return new Promise((resolve, reject) => {
      const url = this.baseUrl.replace(/^http/, "ws") + "/v1/socket";
      const socket = new WebSocket(url);
      this._socket = socket;
      this._helloDone = false;
      let settled = false;
      socket.onopen = () => {
        const id = newRequestId();
        this._pending.set(id, {
          resolve: () => {
            this._helloDone = true;
            this._backoff = 0;
            this.dispatchEvent(new Event("open"));
            if (!settled) { settled = true; resolve(); }
          },
          reject: async (error) => {
            if (error.code === "token_expired") {
              // An expired session: renew it; the reconnection says hello with the new one.
              try { await this.refresh(); } catch { this._socketWanted = null; }
            } else if (error.code !== "network") {
              // A refused credential or game will be refused again: stop reconnecting.
              this._socketWanted = null;
            }
            if (!settled) { settled = true; reject(error); }
            socket.close(4000, "hello refused");
          },
        });
        socket.send(JSON.stringify({
          type: "socket.hello", id, token: this._session.sessionToken, payload: { games: wanted.games },
        }));
      };
      socket.onmessage = (event) => this._receive(event.data);
      socket.onclose = (event) => {
        this._helloDone = false;
        for (const [, waiter] of this._pending) {
          waiter.reject(new PodiumError("network", "the socket closed before the reply"));
        }
        this._pending.clear();
        // 4003: the session was logged out or revoked, 4004: the player banned, 4005: the account
        // deleted; a new socket would be refused too.
        if ([4003, 4004, 4005].includes(event.code) && this._socketWanted === wanted) this._socketWanted = null;
        const willReconnect = this._socketWanted === wanted && this._socket === socket;
        this.dispatchEvent(new CustomEvent("close", { detail: { code: event.code, reason: event.reason, willReconnect } }));
        if (!settled) { settled = true; reject(new PodiumError("network", `the socket closed (${event.code})`)); }
        if (willReconnect && event.code === 4001) {
          // 4001: the session token expired. Renew it, then say hello again at once.
          this.refresh().then(
            () => { if (this._socketWanted === wanted) this._open().catch(() => {}); },
            () => { this._socketWanted = null; });
        } else if (willReconnect) {
          this._backoff = Math.min(wanted.maxBackoffMs, this._backoff ? this._backoff * 2 : 500);
          const wait = this._backoff / 2 + Math.random() * (this._backoff / 2);
          setTimeout(() => {
            if (this._socketWanted === wanted) this._open().catch(() => {});
          }, wait);
        }
      };
    });
  }

  _receive(data) {
    let message;
    try { message = JSON.parse(data); } catch { return; }
    if (message.type === "notification") {
      this.dispatchEvent(new CustomEvent("notification", { detail: message }));
      return;
    }
    const waiter = message.correlationId ? this._pending.get(message.correlationId) : undefined;
    if (!waiter) return;
    this._pending.delete(message.correlationId);
    if (message.type === "error") {
      const p = message.payload ?? {};
      waiter.reject(new PodiumError(p.code ?? "internal_error", p.message ?? "error", {
        field: p.field, retryAfterMilliseconds: p.retryAfterMilliseconds, requestId: message.correlationId,
      }));
    } else {
      waiter.resolve(message.payload);
    }
  }

  /** A request on the socket (the hello's session is its credential); resolves to the reply payload. */
  send(type, options = {}) {
    if (!this.connected) return Promise.reject(new PodiumError("network", "the socket is not connected"));
    const id = options.idempotencyKey ?? newRequestId();
    const request = { type, id, payload: options.payload ?? {} };
    if (options.gameId !== undefined) request.gameId = options.gameId;
    if (options.playerId !== undefined) request.playerId = options.playerId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this._pending.delete(id)) reject(new PodiumError("timeout", `no reply within ${this.timeoutMs} ms`, { requestId: id }));
      }, this.timeoutMs);
      this._pending.set(id, {
        resolve: (value) => { clearTimeout(timer); resolve(value); },
        reject: (error) => { clearTimeout(timer); reject(error); },
      });
      this._socket.send(JSON.stringify(request));
    });
  }

  disconnect() {
    this._socketWanted = null;
    const socket = this._socket;
    this._socket = null;
    if (socket && socket.readyState <= WebSocket.OPEN) socket.close(1000, "bye");
  }
}
