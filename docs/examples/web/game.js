// Whack-a-Cac in the browser: a small game on Podium's browser client (clients/js/podium.js).
//
// What it shows, in the order a game meets it:
//   - logging in (register, log in, or a guest account from a device id kept in localStorage);
//   - game events while playing (`cactus.hit`, `tick`, `match.end`), which earn achievements
//     through the rules of docs/examples/games/whackacac.json;
//   - a score submission at the end of each match, and the board's top 10;
//   - friends (request by player id, accept) and score challenges between friends;
//   - notifications pushed on the WebSocket (`achievement.earned`, `challenge.*`), shown live.
//
// Query parameters: api=<the gateway's HTTP front>, matchSeconds=<N>, autoplay=1.

import { Podium, newRequestId } from "../../../clients/js/podium.js";

const GAME = "whackacac";
const BOARD = "com.dragonforged.whackacac.leaderboard";
const DEFAULT_API = "http://127.0.0.1:8080";
const FRIENDS_POLL_MS = 4000; // friend requests are not notified (PROTOCOL 9.2): poll
const FEED_LIMIT = 50;

const params = new URLSearchParams(location.search);
const MATCH_SECONDS = clamp(parseInt(params.get("matchSeconds") ?? "", 10) || 20, 1, 600);
const AUTOPLAY = ["1", "true", "yes"].includes((params.get("autoplay") ?? "").toLowerCase());

const $ = (id) => document.getElementById(id);
const holes = Array.from(document.querySelectorAll(".hole"));

let podium = null;        // the logged-in client, or null
let friendsTimer = null;
let best = null;          // the player's entry on the board, when known
let match = null;         // the running match
let friendsShown = "";    // what the friends panel shows now
let boardScope = "all";   // the leaderboard shows "all" players or "friends"
const names = new Map();  // playerId -> display name, for showing ids as names
const justEarned = new Map(); // achievementId -> until when it is highlighted (ms)
const shownInbox = new Set(); // inbox ids already in the feed

// ---- helpers -----------------------------------------------------------------------------------

function clamp(value, low, high) { return Math.min(high, Math.max(low, value)); }

function element(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "data") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

function fill(list, items, emptyText) {
  list.replaceChildren(...(items.length ? items : [element("li", { class: "empty", text: emptyText })]));
}

function nameOf(playerId) {
  if (podium && playerId === podium.playerId) return "you";
  return names.get(playerId) ?? shortId(playerId);
}

function shortId(playerId) { return String(playerId).slice(0, 8) + "…"; }

function learnNames(profiles) {
  for (const p of profiles ?? []) if (p && p.playerId && p.displayName) names.set(p.playerId, p.displayName);
}

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;

/** A notification's message with the player ids in it shown as names. */
function readable(message) {
  return String(message ?? "").replace(UUID, (id) => (names.has(id) || id === podium?.playerId ? nameOf(id) : shortId(id)));
}

/** Looks up the names of ids not known yet (auth.players), then calls `then`. */
async function lookUpNames(text, then) {
  const unknown = [...new Set(String(text ?? "").match(UUID) ?? [])].filter((id) => !names.has(id) && id !== podium?.playerId);
  if (!podium || unknown.length === 0) return;
  try {
    const reply = await podium.request("auth.players", { payload: { playerIds: unknown } });
    learnNames(reply.players);
    then();
  } catch {
    // The ids stay shortened: nothing worth an error banner.
  }
}

// ---- messages ----------------------------------------------------------------------------------

function showError(error) {
  const code = error?.code ?? "error";
  const message = error?.message ?? String(error);
  $("error-text").textContent = "";
  $("error-text").append(element("strong", { text: code }), ": " + message);
  $("error").dataset.code = code;
  $("error").hidden = false;
  console.warn("Podium error", error);
  if (["session_revoked", "invalid_token"].includes(code) && podium) signedOut("Your session ended: log in again.");
}

function showStatus(text) {
  $("status").textContent = text;
  $("status").hidden = false;
}

/** Takes down an error that says the server could not be reached, once it can be again. */
function clearConnectionError() {
  if (["network", "timeout", "service_unavailable"].includes($("error").dataset.code)) {
    $("error").hidden = true;
    $("error").dataset.code = "";
  }
}

function clearMessages() {
  $("error").hidden = true;
  $("error").dataset.code = "";
  $("status").hidden = true;
}

// ---- logging in --------------------------------------------------------------------------------

function storedSession() {
  try { return JSON.parse(sessionStorage.getItem("whackacac.session") ?? "null"); } catch { return null; }
}

function makeClient(baseUrl, session) {
  const client = new Podium({
    baseUrl,
    session,
    onSession: (grant) => {
      if (grant) sessionStorage.setItem("whackacac.session", JSON.stringify({ baseUrl, session: grant }));
      else sessionStorage.removeItem("whackacac.session");
    },
  });
  client.addEventListener("notification", (event) => { if (client === podium) onNotification(event.detail); });
  client.addEventListener("open", () => {
    if (client !== podium) return;
    socketState("live");
    clearConnectionError();
    loadInbox(); // what came while the socket was down
  });
  client.addEventListener("close", (event) => {
    if (client === podium) socketState(event.detail?.willReconnect ? "reconnecting" : "offline");
  });
  return client;
}

function deviceId() {
  let id = localStorage.getItem("whackacac.deviceId");
  if (!id) {
    id = newRequestId();
    localStorage.setItem("whackacac.deviceId", id);
  }
  return id;
}

async function signIn(how) {
  clearMessages();
  const baseUrl = $("base-url").value.trim().replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]+/.test(baseUrl)) {
    showError({ code: "invalid_field", message: "the server must be an http:// or https:// URL" });
    return;
  }
  const username = $("username").value.trim();
  const password = $("password").value;
  const client = makeClient(baseUrl, null);
  setFormBusy(true);
  try {
    if (how === "register") await client.register(username, password);
    else if (how === "login") await client.login(username, password);
    else await client.deviceLogin(deviceId(), `Guest ${deviceId().slice(0, 4)}`);
    localStorage.setItem("whackacac.api", baseUrl);
    $("password").value = "";
    signedIn(client);
  } catch (error) {
    showError(error);
  } finally {
    setFormBusy(false);
  }
}

function setFormBusy(isBusy) {
  for (const id of ["login", "register", "guest"]) $(id).disabled = isBusy;
}

function signedIn(client) {
  podium = client;
  const session = client.session;
  names.set(session.playerId, session.displayName ?? session.username ?? "Player");
  $("player-name").textContent = session.displayName ?? session.username ?? "Player";
  $("player-id").textContent = session.playerId;
  $("login-form").hidden = true;
  $("who").hidden = false;
  for (const id of ["start-match", "add-friend", "refresh-friends"]) $(id).disabled = false;
  $("match-status").textContent = AUTOPLAY ? "Autoplay is on: start a match and watch." : "Press Start and whack every cactus you see.";
  socketState("connecting");
  client.connect({ games: [GAME] }).catch((error) => { if (client === podium) showError(error); });
  refreshAll();
  friendsTimer = setInterval(() => refreshFriends(), FRIENDS_POLL_MS);
}

function signedOut(note) {
  const client = podium;
  podium = null;
  if (client) client.disconnect();
  sessionStorage.removeItem("whackacac.session");
  clearInterval(friendsTimer);
  stopMatch();
  best = null;
  names.clear();
  shownInbox.clear();
  friendsShown = "";
  $("login-form").hidden = false;
  $("who").hidden = true;
  $("player-name").textContent = "";
  $("player-id").textContent = "";
  for (const id of ["start-match", "add-friend", "refresh-friends"]) $(id).disabled = true;
  $("best").textContent = "–";
  $("points").textContent = "";
  $("match-status").textContent = note ?? "Log in to play.";
  fill($("leaderboard"), [], "Log in to see the board.");
  fill($("achievements"), [], "Log in to see achievements.");
  fill($("incoming"), [], "None.");
  fill($("friends"), [], "None yet: share your player id.");
  fill($("outgoing"), [], "None.");
  fill($("feed"), [], "Nothing yet.");
  socketState("offline");
}

async function logOut() {
  clearMessages();
  const client = podium;
  signedOut();
  try {
    await client?.logout();
  } catch (error) {
    showError(error);
  }
}

function socketState(state) {
  const pill = $("socket-status");
  pill.dataset.state = state;
  pill.textContent = { live: "live", connecting: "connecting…", reconnecting: "reconnecting…", offline: "offline" }[state] ?? state;
}

// ---- panels ------------------------------------------------------------------------------------

function refreshAll() {
  refreshAchievements();
  refreshLeaderboard();
  refreshFriends();
  refreshBest();
}

async function refreshBest() {
  const client = podium;
  if (!client) return;
  try {
    const reply = await client.request("leaderboard.entry", { gameId: GAME, payload: { boardId: BOARD } });
    if (client !== podium) return;
    if (reply.entry) setBest(reply.entry.value);
  } catch (error) {
    if (client === podium) showError(error);
  }
}

function setBest(value) {
  best = value;
  $("best").textContent = String(value);
}

/** Runs `load` now, or once more right after the run in progress: answers never arrive stale. */
function coalesced(load) {
  let running = false;
  let again = false;
  return async function run() {
    if (running) { again = true; return; }
    running = true;
    try {
      await load();
    } finally {
      running = false;
      if (again) { again = false; run(); }
    }
  };
}

function refreshAchievements(earnedId) {
  if (earnedId) justEarned.set(earnedId, Date.now() + 8000);
  return loadAchievements();
}

const loadAchievements = coalesced(async () => {
  const client = podium;
  if (!client) return;
  try {
    const list = await client.achievements(GAME);
    if (client === podium) renderAchievements(list);
  } catch (error) {
    if (client === podium) showError(error);
  }
});

function renderAchievements(list) {
  const now = Date.now();
  const items = (list.achievements ?? []).map((a) => {
    const secret = a.hidden && a.title === undefined;
    const until = justEarned.get(a.id) ?? 0;
    const fresh = until > now;
    const percent = clamp(Number(a.percentComplete ?? 0), 0, 100);
    const progress = !a.earned && !secret && percent > 0
      ? element("span", { class: "progress", title: `${Math.floor(percent)}%` },
        element("span", { class: "bar", style: `width: ${percent}%` }))
      : null;
    const item = element("li", {
      class: ["achievement", a.earned ? "earned" : "locked", secret ? "secret" : "", fresh ? "just-earned" : ""].join(" ").trim(),
      data: { id: a.id, earned: String(!!a.earned) },
    },
    element("span", { class: "medal", "aria-hidden": "true", text: a.earned ? "★" : secret ? "?" : "☆" }),
    element("span", { class: "what" },
      element("span", { class: "title", text: secret ? "Hidden achievement" : a.title }),
      element("span", { class: "description", text: secret ? "Keep playing to find out." : a.description }),
      progress),
    element("span", { class: "points", text: secret ? "" : `${a.points} pts` }));
    // The highlight of a new achievement fades after a few seconds.
    if (fresh) setTimeout(() => item.classList.remove("just-earned"), until - now);
    return item;
  });
  for (const [id, until] of justEarned) if (until <= now) justEarned.delete(id);
  fill($("achievements"), items, "This game has no achievements.");
  $("points").textContent = `${list.pointsEarned ?? 0} / ${list.pointsTotal ?? 0} points`;
}

const refreshLeaderboard = coalesced(async () => {
  const client = podium;
  if (!client) return;
  const friendsOnly = boardScope === "friends";
  try {
    const page = await client.top(GAME, BOARD, friendsOnly ? { limit: 10, friendsOnly: true } : { limit: 10 });
    if (client !== podium) return;
    const entries = page.entries ?? [];
    // Outside the top 10: show the player's own place below it.
    let own = null;
    if (!friendsOnly && entries.length > 0 && !entries.some((entry) => entry.playerId === client.playerId)) {
      own = (await client.request("leaderboard.entry", { gameId: GAME, payload: { boardId: BOARD } })).entry;
      if (client !== podium) return;
    }
    learnNames(entries);
    const rows = entries.map((entry) => leaderboardRow(entry, client));
    if (own) rows.push(element("li", { class: "gap", text: "⋯" }), leaderboardRow(own, client));
    fill($("leaderboard"), rows, friendsOnly ? "No scores among your friends yet." : "No scores yet: be the first.");
    $("leaderboard").dataset.scope = boardScope;
  } catch (error) {
    if (client === podium) showError(error);
  }
});

function leaderboardRow(entry, client) {
  const mine = entry.playerId === client.playerId;
  const name = entry.displayName ?? (mine ? names.get(entry.playerId) : null) ?? shortId(entry.playerId);
  return element("li", { class: mine ? "me" : "", data: { player: entry.playerId, value: String(entry.value), rank: String(entry.rank) } },
    element("span", { class: "rank", text: `#${entry.rank}` }),
    element("span", { class: "who", text: mine ? `${name} (you)` : name }),
    element("span", { class: "value", text: String(entry.value) }));
}

function showBoard(scope) {
  boardScope = scope;
  $("board-all").setAttribute("aria-pressed", String(scope === "all"));
  $("board-friends").setAttribute("aria-pressed", String(scope === "friends"));
  refreshLeaderboard();
}

const refreshFriends = coalesced(async () => {
  const client = podium;
  if (!client) return;
  try {
    const list = await client.friends();
    if (client !== podium) return;
    clearConnectionError();
    // Polled every few seconds: only redraw when something changed, so no click gets lost.
    const signature = JSON.stringify([list.incoming, list.friends, list.outgoing]);
    if (signature === friendsShown) return;
    friendsShown = signature;
    learnNames([...(list.friends ?? []), ...(list.incoming ?? []), ...(list.outgoing ?? [])]);
    fill($("incoming"), (list.incoming ?? []).map((p) => friendRow(p,
      element("button", { type: "button", id: `accept-${p.playerId}`, class: "small-button", text: "Accept", onclick: (e) => accept(p, e.currentTarget) }))),
    "None.");
    fill($("friends"), (list.friends ?? []).map((p) => friendRow(p,
      element("button", { type: "button", id: `challenge-${p.playerId}`, class: "small-button", text: "Challenge", onclick: (e) => challenge(p, e.currentTarget) }))),
    "None yet: share your player id.");
    fill($("outgoing"), (list.outgoing ?? []).map((p) => friendRow(p)), "None.");
  } catch (error) {
    if (client === podium) showError(error);
  }
});

function friendRow(profile, button) {
  return element("li", { data: { player: profile.playerId } },
    element("span", { class: "who" },
      element("span", { class: "title", text: profile.displayName }),
      element("code", { class: "description", text: profile.playerId })),
    button);
}

async function addFriend(event) {
  event.preventDefault();
  clearMessages();
  const other = $("friend-id").value.trim();
  if (!podium) return;
  if (!other) {
    showError({ code: "missing_field", message: "paste your friend's player id first" });
    return;
  }
  $("add-friend").disabled = true;
  try {
    const relation = await podium.requestFriend(other, GAME);
    $("friend-id").value = "";
    showStatus(relation.state === "friends" ? "You are friends now." : "Friend request sent: it shows up on their side.");
    await refreshFriends();
  } catch (error) {
    showError(error);
  } finally {
    if (podium) $("add-friend").disabled = false;
  }
}

async function accept(profile, button) {
  clearMessages();
  button.disabled = true;
  try {
    await podium.acceptFriend(profile.playerId, GAME);
    showStatus(`You and ${profile.displayName} are friends now.`);
    await refreshFriends();
  } catch (error) {
    button.disabled = false;
    showError(error);
  }
}

async function challenge(profile, button) {
  clearMessages();
  button.disabled = true;
  try {
    const message = best === null ? "Beat my score at Whack-a-Cac!" : `Beat my ${best} at Whack-a-Cac!`;
    const detail = await podium.challenge(GAME, BOARD, [profile.playerId], message);
    showStatus(`Challenge sent: ${profile.displayName} has to beat ${detail.issuerValue}.`);
  } catch (error) {
    showError(error);
  } finally {
    button.disabled = false;
  }
}

// ---- notifications -----------------------------------------------------------------------------

function onNotification(notification) {
  const payload = notification.payload ?? {};
  addToFeed({
    kind: payload.kind ?? "notification",
    message: payload.message ?? "",
    time: notification.timestamp ?? Date.now(),
    inboxId: payload.details?.inboxId,
    source: "live",
  });
  if (payload.kind === "achievement.earned") refreshAchievements(payload.details?.achievementId);
  if (payload.kind?.startsWith("challenge.completed")) refreshBest();
  if (payload.kind?.startsWith("friend.")) refreshFriends();
  refreshLeaderboard();
}

/**
 * The notification inbox of every kind (PROTOCOL 14.5), newest first, so that what came while the
 * page was closed shows too: achievements, challenges, left the top 10, operators' notices.
 */
async function loadInbox() {
  const client = podium;
  if (!client) return;
  try {
    const reply = await client.notifications(GAME, { limit: FEED_LIMIT });
    if (client !== podium) return;
    for (const item of (reply.items ?? []).slice(0, FEED_LIMIT).reverse()) {
      addToFeed({ kind: item.kind, message: item.message, time: item.createdAt, inboxId: item.id, source: "inbox", read: item.read });
    }
  } catch (error) {
    if (client === podium) showError(error);
  }
}

function addToFeed({ kind, message, time: when, inboxId, source, read }) {
  const time = Number(when) || Date.now();
  if (inboxId) {
    if (shownInbox.has(inboxId)) return;
    shownInbox.add(inboxId);
  }
  const feed = $("feed");
  feed.querySelector(".empty")?.remove();
  const text = element("span", { class: "message", text: readable(message) });
  const category = kind.split(".")[0];
  const item = element("li", { class: `${category} ${source}${read ? " read" : ""}`, data: { kind, source, time: String(time) } },
    element("span", { class: "kind", text: kind }),
    text,
    element("time", { datetime: new Date(time).toISOString(), text: new Date(time).toLocaleTimeString() + (source === "inbox" ? " · earlier" : "") }));
  // Newest first, also when the inbox brings older items after live ones.
  const after = Array.from(feed.children).find((other) => Number(other.dataset.time) < time);
  feed.insertBefore(item, after ?? null);
  while (feed.children.length > FEED_LIMIT) feed.lastElementChild.remove();
  lookUpNames(message, () => { text.textContent = readable(message); });
}

// ---- the game ----------------------------------------------------------------------------------

function startMatch() {
  if (!podium || match) return;
  clearMessages();
  match = {
    id: newRequestId(), client: podium, score: 0, left: MATCH_SECONDS, up: -1, last: -1,
    ending: false, timers: new Set(), sent: [],
  };
  gameState("running");
  $("score").textContent = "0";
  $("time-left").textContent = `${MATCH_SECONDS}s`;
  $("start-match").disabled = true;
  $("match-status").textContent = AUTOPLAY ? "Autoplay is whacking…" : "Whack them!";
  const m = match;
  const ticker = setInterval(() => tick(m), 1000);
  m.timers.add({ clear: () => clearInterval(ticker) });
  later(m, 350, () => pop(m));
}

/** A timeout that belongs to the match: cleared when it ends. */
function later(m, ms, action) {
  const handle = { clear: () => clearTimeout(id) };
  const id = setTimeout(() => { m.timers.delete(handle); action(); }, ms);
  m.timers.add(handle);
  return handle;
}

function pop(m) {
  if (m !== match || m.ending) return;
  let hole;
  do hole = Math.floor(Math.random() * holes.length); while (hole === m.last);
  m.up = hole;
  m.last = hole;
  holes[hole].classList.add("up");
  m.down = later(m, 800 + Math.random() * 500, () => {
    holes[hole].classList.remove("up");
    m.up = -1;
    later(m, gap(), () => pop(m));
  });
  if (AUTOPLAY) later(m, 140 + Math.random() * 120, () => holes[hole].click());
}

function gap() { return 180 + Math.random() * 320; }

function whack(hole) {
  const m = match;
  if (!m || m.ending) return;
  if (m.up !== hole) {
    flash(holes[hole], "miss");
    return;
  }
  m.down?.clear();
  m.timers.delete(m.down);
  m.up = -1;
  m.score += 1;
  holes[hole].classList.remove("up");
  flash(holes[hole], "hit");
  $("score").textContent = String(m.score);
  send(m, m.client.publish(GAME, "cactus.hit", 1, { matchId: m.id }));
  later(m, gap(), () => pop(m));
}

function flash(node, name) {
  node.classList.add(name);
  setTimeout(() => node.classList.remove(name), 250);
}

/** An event on its way: errors are shown, and the match end waits for all of them. */
function send(m, promise) {
  m.sent.push(promise.catch((error) => { if (m.client === podium) showError(error); }));
}

function tick(m) {
  if (m !== match || m.ending) return;
  m.left -= 1;
  $("time-left").textContent = `${Math.max(0, m.left)}s`;
  send(m, m.client.publish(GAME, "tick", 1, { matchId: m.id }));
  if (m.left <= 0) endMatch(m);
}

async function endMatch(m) {
  m.ending = true;
  for (const timer of m.timers) timer.clear();
  m.timers.clear();
  for (const hole of holes) hole.classList.remove("up");
  gameState("submitting");
  $("match-status").textContent = `Time! ${m.score} ${m.score === 1 ? "cactus" : "cacti"}: submitting…`;
  try {
    await Promise.all(m.sent); // the hits land before the match ends
    await m.client.publish(GAME, "match.end", m.score, { matchId: m.id });
    const receipt = await m.client.submitScore(GAME, BOARD, m.score);
    if (m.client !== podium) return;
    if (receipt.entry) setBest(receipt.entry.value);
    const rank = receipt.entry?.rank ? ` You are #${receipt.entry.rank}.` : "";
    $("match-status").textContent = `Match over: ${m.score} points.${receipt.improved ? " New best!" : ""}${rank} Score submitted.`;
    gameState("done");
  } catch (error) {
    if (m.client !== podium) return;
    showError(error);
    $("match-status").textContent = `Match over: ${m.score} points, but the score was not submitted.`;
    gameState("failed");
  } finally {
    if (m === match) {
      match = null;
      if (podium) $("start-match").disabled = false;
    }
    refreshLeaderboard();
    refreshAchievements();
  }
}

function stopMatch() {
  if (!match) return;
  for (const timer of match.timers) timer.clear();
  match = null;
  for (const hole of holes) hole.classList.remove("up");
  $("score").textContent = "0";
  $("time-left").textContent = "–";
  gameState("idle");
}

function gameState(state) { $("game").dataset.state = state; }

// ---- wiring ------------------------------------------------------------------------------------

$("base-url").value = params.get("api") ?? localStorage.getItem("whackacac.api") ?? DEFAULT_API;
$("time-left").textContent = `${MATCH_SECONDS}s`;
$("login-form").addEventListener("submit", (event) => { event.preventDefault(); signIn("login"); });
$("register").addEventListener("click", () => signIn("register"));
$("guest").addEventListener("click", () => signIn("guest"));
$("logout").addEventListener("click", logOut);
$("copy-id").addEventListener("click", async () => {
  try {
    await navigator.clipboard.writeText($("player-id").textContent);
    showStatus("Your player id is on the clipboard: send it to a friend.");
  } catch {
    getSelection().selectAllChildren($("player-id"));
  }
});
$("error-close").addEventListener("click", clearMessages);
$("start-match").addEventListener("click", startMatch);
$("board-all").addEventListener("click", () => showBoard("all"));
$("board-friends").addEventListener("click", () => showBoard("friends"));
$("friend-form").addEventListener("submit", addFriend);
$("refresh-friends").addEventListener("click", () => { clearMessages(); refreshFriends(); });
holes.forEach((hole, index) => hole.addEventListener("click", () => whack(index)));

// A reload keeps the player logged in (this tab only).
const saved = storedSession();
if (saved && saved.session && saved.baseUrl === $("base-url").value.trim().replace(/\/+$/, "")) {
  signedIn(makeClient(saved.baseUrl, saved.session));
}
