/// The console's Mustache templates (swift-mustache), kept in the binary: no files to ship and
/// no build step. `{{x}}` escapes HTML; `{{{body}}}` is the page's own rendered HTML.
enum ConsoleTemplates {
    static let all: [String: String] = [
        "layout": layout, "login": login, "refused": refused, "overview": overview, "games": games,
        "leaderboards": leaderboards, "players": players, "challenges": challenges, "events": events, "audit": audit,
    ]

    static let layout = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Podium console · {{title}}</title>
        <link rel="stylesheet" href="/console/static/console.css">
        <script src="/console/static/console.js" defer></script>
        </head>
        <body>
        <header>
        <span class="brand">Podium <small>console</small></span>
        <nav>{{#nav}}<a href="{{href}}"{{#current}} aria-current="page"{{/current}}>{{label}}</a>{{/nav}}</nav>
        <span class="who" id="who">{{who}}</span>
        <form method="post" action="/console/logout" class="logout"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Log out</button></form>
        </header>
        <main>
        {{#flash}}<p class="flash" role="status">{{flash}}</p>{{/flash}}
        <h1>{{title}}</h1>
        {{{body}}}
        </main>
        </body>
        </html>
        """

    static let login = """
        <!doctype html>
        <html lang="en">
        <head><meta charset="utf-8"><title>Podium console · log in</title><link rel="stylesheet" href="/console/static/console.css"></head>
        <body class="login">
        <main>
        <h1>Podium console</h1>
        {{#error}}<p class="flash error" role="alert">{{error}}</p>{{/error}}
        <form method="post" action="/console/login" id="operator-login">
        <label>Operator <input name="operator" id="operator" autocomplete="username" autofocus></label>
        <label>Password <input type="password" name="password" id="password" autocomplete="current-password"></label>
        <label>Code from the authenticator app (if set up) <input name="code" id="code" inputmode="numeric" autocomplete="one-time-code" maxlength="6"></label>
        <button type="submit" id="operator-submit">Log in</button>
        </form>
        <details{{#keyOpen}} open{{/keyOpen}}><summary>Log in with the admin key</summary>
        <form method="post" action="/console/login">
        <label>Admin key <input type="password" name="key" id="key" autocomplete="off"></label>
        <button type="submit" id="login">Log in with the key</button>
        </form></details>
        <p class="hint">An operator account (<code>podium admin operators create</code>), or the shared key <code>PODIUM_ADMIN_KEY</code>. Every change is written to the audit log with who made it.</p>
        </main>
        </body>
        </html>
        """

    static let refused = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Refused</title><link rel="stylesheet" href="/console/static/console.css"></head>
        <body class="login"><main><h1>Refused</h1><p class="flash error" id="refused">{{reason}}</p><p><a href="/console/overview">Back to the console</a></p></main></body></html>
        """

    static let overview = """
        <section class="cards">
        {{#processes}}<div class="card {{#ready}}ok{{/ready}}{{^ready}}down{{/ready}}"><h2>{{name}}</h2><p class="state">{{#ready}}ready{{/ready}}{{^ready}}not ready{{/ready}}</p>{{#detail}}<p class="detail">{{detail}}</p>{{/detail}}</div>{{/processes}}
        </section>
        <section>
        <h2>Traffic</h2>
        <p>Requests answered <strong id="requests">{{requests}}</strong>, of them errors <strong id="errors">{{errors}}</strong>; event log at <strong id="head">{{eventLogHead}}</strong> ({{eventLogSize}}).</p>
        <canvas id="traffic" width="720" height="180" aria-label="requests and errors per second, live"></canvas>
        <p class="legend"><span class="swatch requests"></span> requests/s <span class="swatch errors"></span> errors/s, every 2 s</p>
        </section>
        <section>
        <h2>Stream lag</h2>
        <table><thead><tr><th>service</th><th>stream</th><th>position</th><th>head</th><th>lag</th></tr></thead><tbody id="lag">
        {{#streams}}<tr><td>{{service}}</td><td>{{stream}}</td><td>{{position}}</td><td>{{head}}</td><td>{{lag}}</td></tr>{{/streams}}
        {{^streams}}<tr><td colspan="5">no followers</td></tr>{{/streams}}
        </tbody></table>
        </section>
        <section>
        <h2>Console sessions</h2>
        <table><thead><tr><th>session</th><th>from</th><th>since</th><th></th></tr></thead><tbody>
        {{#sessions}}<tr><td><code>{{label}}</code>{{#current}} (this one){{/current}}</td><td>{{peer}}</td><td>{{since}}</td><td><form method="post" action="/console/sessions/revoke"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="session" value="{{label}}"><button type="submit">Revoke</button></form></td></tr>{{/sessions}}
        </tbody></table>
        </section>
        """

    static let games = """
        <form method="get" class="filters"><label>Game <input name="game" value="{{game}}" required></label><button type="submit">Show</button></form>
        {{#error}}<p class="flash error">{{error}}</p>{{/error}}
        {{#loaded}}
        <h2>Leaderboards</h2>
        <table><thead><tr><th>board</th><th>title</th><th>order</th><th>recurring</th><th></th></tr></thead><tbody>
        {{#boards}}<tr><td><code>{{id}}</code></td><td>{{title}}</td><td>{{order}}</td><td>{{recurring}}</td><td><a href="/console/leaderboards?game={{game}}&amp;board={{id}}">view</a></td></tr>{{/boards}}
        </tbody></table>
        <h2>Achievements</h2>
        <table><thead><tr><th>achievement</th><th>points</th><th>hidden</th><th>rarity (players who earned it)</th></tr></thead><tbody>
        {{#achievements}}<tr><td>{{title}} <code>{{id}}</code></td><td>{{points}}</td><td>{{hidden}}</td><td><span class="bar"><span class="fill" data-percent="{{percent}}"></span></span> {{percentText}}</td></tr>{{/achievements}}
        {{^achievements}}<tr><td colspan="4">none</td></tr>{{/achievements}}
        </tbody></table>
        <h2>Challenges</h2>
        <p>Score, achievement and time-boxed challenges among friends; games listed in <code>PODIUM_CHALLENGE_OPEN_GAMES</code> (the challenge service's setting) allow them between any players.</p>
        <h2>Define a board</h2>
        <p>Adds a board, or changes one with the same id (a board with scores keeps its sort order).</p>
        <form method="post" action="/console/games/define-board" class="filters" id="define-board"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="game" value="{{game}}">
        <label>Id <input name="id" id="board-id" required maxlength="128"></label>
        <label>Title <input name="title" id="board-title" required maxlength="200"></label>
        <label>Order <select name="sortOrder"><option value="higherIsBetter">higher is better</option><option value="lowerIsBetter">lower is better</option></select></label>
        <label>Submissions <select name="submitOperator"><option value="best">keep the best</option><option value="latest">keep the latest</option><option value="increment">add up</option></select></label>
        <label>Format <select name="format"><option value="integer">integer</option><option value="timeMilliseconds">time (ms)</option><option value="currencyMicros">currency (micros)</option></select></label>
        <label>Minimum <input name="minimum" type="number"></label>
        <label>Maximum <input name="maximum" type="number"></label>
        <label><span><input type="checkbox" name="serverOnly" value="1"> game server only</span></label>
        <button type="submit" id="define-board-submit">Save board</button></form>
        <h2>Define an achievement</h2>
        <p>Adds an achievement reported by the game (rules from events are defined in the game files), or changes one with the same id.</p>
        <form method="post" action="/console/games/define-achievement" class="filters" id="define-achievement"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="game" value="{{game}}">
        <label>Id <input name="id" id="achievement-id" required maxlength="128"></label>
        <label>Title <input name="title" id="achievement-title" required maxlength="200"></label>
        <label>Description <input name="description" id="achievement-description" required maxlength="500"></label>
        <label>Once earned <input name="earnedDescription" id="achievement-earned" required maxlength="500"></label>
        <label>Points <input name="points" id="achievement-points" type="number" min="0" max="100" value="10" required></label>
        <label>Steps to earn it <input name="target" type="number" min="1" placeholder="percent reports"></label>
        <label><span><input type="checkbox" name="hidden" value="1"> hidden</span></label>
        <label><span><input type="checkbox" name="repeatable" value="1"> repeatable</span></label>
        <button type="submit" id="define-achievement-submit">Save achievement</button></form>
        {{/loaded}}
        """

    static let leaderboards = """
        <form method="get" class="filters">
        <label>Game <input name="game" value="{{game}}" required></label>
        <label>Board <input name="board" value="{{board}}" required></label>
        <label>Scope <select name="scope">{{#scopes}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/scopes}}</select></label>
        <label>Ended period <input name="period" type="number" min="0" value="{{period}}" placeholder="recurring boards"></label>
        <label>Archive <select name="archive"><option value="">current standings</option>{{#archives}}<option value="{{archive}}"{{#selected}} selected{{/selected}}>archive {{archive}} ({{entries}} entries, reset {{resetAt}})</option>{{/archives}}</select></label>
        <label>Offset <input name="offset" type="number" min="0" value="{{offset}}"></label>
        <button type="submit">Show</button>
        </form>
        <form method="get" class="filters"><input type="hidden" name="game" value="{{game}}"><input type="hidden" name="board" value="{{board}}"><label>Find a player <input name="find" value="{{find}}" placeholder="player id"></label><button type="submit">Find</button></form>
        {{#found}}<p class="flash">{{found}}</p>{{/found}}
        {{#error}}<p class="flash error">{{error}}</p>{{/error}}
        {{#loaded}}
        <p>{{scopeLabel}}: {{total}} entries.</p>
        <table id="standings"><thead><tr><th>rank</th><th>player</th><th>name</th><th>value</th><th>submitted</th><th></th></tr></thead><tbody>
        {{#entries}}<tr><td>{{rank}}</td><td><a href="/console/players?playerId={{playerId}}"><code>{{playerId}}</code></a></td><td>{{displayName}}</td><td>{{value}}</td><td>{{submittedAt}}</td><td>{{^archived}}<form method="post" action="/console/leaderboards/remove-score"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="game" value="{{game}}"><input type="hidden" name="board" value="{{board}}"><input type="hidden" name="player" value="{{playerId}}"><button type="submit" class="danger">Remove score</button></form>{{/archived}}</td></tr>{{/entries}}
        {{^entries}}<tr><td colspan="6">no entries</td></tr>{{/entries}}
        </tbody></table>
        {{#next}}<p><a href="{{next}}">next page</a></p>{{/next}}
        <h2>Reset</h2>
        <form method="post" action="/console/leaderboards/reset" class="danger-zone"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="game" value="{{game}}"><input type="hidden" name="board" value="{{board}}">
        <label><input type="checkbox" name="confirm" value="yes" required> move the current standings into a new archive and start the board empty</label>
        <button type="submit" class="danger" id="reset">Reset board</button></form>
        {{/loaded}}
        """

    static let players = """
        <form method="get" class="filters" id="find-player">
        <label>Find a player <input name="q" id="q" value="{{q}}" placeholder="username, display name or id" autocomplete="off"></label>
        <label>Game (achievements, challenges) <input name="game" value="{{game}}"></label>
        <button type="submit" id="find">Find</button>
        </form>
        {{#searched}}<div class="scroll"><table id="player-results"><thead><tr><th>name</th><th>username</th><th>player</th><th>created</th></tr></thead><tbody>
        {{#results}}<tr><td><a href="{{link}}">{{displayName}}</a></td><td>{{username}}</td><td><code>{{playerId}}</code></td><td>{{createdAt}}</td></tr>{{/results}}
        {{^results}}<tr><td colspan="4">no player matches</td></tr>{{/results}}
        </tbody></table></div>{{/searched}}
        <details><summary>Exact look-up by username, id or device</summary>
        <form method="get" class="filters">
        <label>Username <input name="username" value="{{username}}"></label>
        <label>Player id <input name="playerId" value="{{playerId}}"></label>
        <label>Device id <input name="deviceId" value="{{deviceId}}"></label>
        <label>Game (achievements, challenges) <input name="game" value="{{game}}"></label>
        <button type="submit" id="search">Look up</button>
        </form></details>
        {{#error}}<p class="flash error">{{error}}</p>{{/error}}
        {{#player}}
        <section class="profile">
        <h2>{{displayName}}</h2>
        <dl>
        <dt>player</dt><dd><code id="player-id">{{playerId}}</code></dd>
        <dt>username</dt><dd>{{username}}</dd>
        <dt>created</dt><dd>{{createdAt}}</dd>
        <dt>friends</dt><dd>{{friends}}</dd>
        <dt>ban</dt><dd id="ban-state">{{#ban}}banned since {{bannedAt}} {{until}}: {{reason}}{{/ban}}{{^ban}}not banned{{/ban}}</dd>
        </dl>
        {{#game}}<h3>Scores in {{game}}</h3>
        <table id="player-scores"><thead><tr><th>board</th><th>score</th><th>rank</th><th>submitted</th></tr></thead><tbody>
        {{#scores}}<tr><td><a href="/console/leaderboards?game={{game}}&amp;board={{boardId}}">{{board}}</a></td><td>{{value}}</td><td>{{rank}}</td><td>{{at}}</td></tr>{{/scores}}
        {{^scores}}<tr><td colspan="4">none</td></tr>{{/scores}}
        </tbody></table>
        <h3>Achievements in {{game}}</h3>
        <table id="player-achievements"><thead><tr><th>achievement</th><th>progress</th><th>earned</th></tr></thead><tbody>
        {{#achievements}}<tr><td>{{title}}</td><td>{{percent}}</td><td>{{earned}}</td></tr>{{/achievements}}
        {{^achievements}}<tr><td colspan="3">none</td></tr>{{/achievements}}
        </tbody></table>
        <h3>Challenges in {{game}}</h3>
        <table id="player-challenges"><thead><tr><th>created</th><th>kind</th><th>role</th><th>state</th></tr></thead><tbody>
        {{#challenges}}<tr><td>{{createdAt}}</td><td>{{kind}}</td><td>{{role}}</td><td>{{state}}</td></tr>{{/challenges}}
        {{^challenges}}<tr><td colspan="4">none</td></tr>{{/challenges}}
        </tbody></table>{{/game}}
        <h3>Friends</h3>
        <ul id="friends">{{#friendIds}}<li><a href="/console/players?playerId={{id}}">{{name}}</a> <code>{{id}}</code></li>{{/friendIds}}{{^friendIds}}<li>none</li>{{/friendIds}}</ul>
        <h3>Devices</h3>
        <ul id="devices">{{#devices}}<li><code>{{deviceId}}</code>, linked {{linkedAt}} <form method="post" action="/console/players/unlink-device" class="inline" data-confirm="Unlink this device? Its next login makes a new account."><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="player" value="{{playerId}}"><input type="hidden" name="device" value="{{deviceId}}"><button type="submit">Unlink</button></form></li>{{/devices}}{{^devices}}<li>none</li>{{/devices}}</ul>
        {{#hasLockouts}}<h3>Login lockouts</h3>{{/hasLockouts}}
        {{#lockouts}}<form method="post" action="/console/players/unlock" class="inline"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="player" value="{{playerId}}"><input type="hidden" name="username" value="{{username}}">{{limit}} from {{address}}: {{failures}} failed logins <button type="submit">Unlock</button></form>{{/lockouts}}
        <h3>Active sessions</h3>
        <table><thead><tr><th>session</th><th>since</th><th>refresh until</th><th></th></tr></thead><tbody>
        {{#sessions}}<tr><td><code>{{sessionId}}</code></td><td>{{createdAt}}</td><td>{{expiresAt}}</td><td><form method="post" action="/console/players/revoke-session"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="player" value="{{playerId}}"><input type="hidden" name="session" value="{{sessionId}}"><button type="submit">Revoke</button></form></td></tr>{{/sessions}}
        {{^sessions}}<tr><td colspan="4">none</td></tr>{{/sessions}}
        </tbody></table>
        {{#ban}}<form method="post" action="/console/players/unban"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="player" value="{{playerId}}"><button type="submit" id="unban">Unban</button></form>{{/ban}}
        {{^ban}}<form method="post" action="/console/players/ban" class="danger-zone"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="player" value="{{playerId}}">
        <label>Reason <input name="reason" id="ban-reason" maxlength="500" required></label>
        <label>Days (empty: until unbanned) <input name="days" type="number" min="1" max="3650"></label>
        <button type="submit" class="danger" id="ban">Ban</button></form>{{/ban}}
        <p><a href="/console/players/export?player={{playerId}}" id="export" download>Export the player's data (JSON)</a></p>
        <form method="post" action="/console/players/delete" class="danger-zone" id="delete-account"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="player" value="{{playerId}}">
        <p>Deleting the account ends every session, unlinks devices and erases the player's scores, achievements, challenges, friends and inbox in every game. It cannot be undone.</p>
        <label>Reason (for the audit log) <input name="reason" id="delete-reason" maxlength="500"></label>
        <label>Type DELETE to confirm <input name="confirm" id="delete-confirm" autocomplete="off" required pattern="DELETE"></label>
        <button type="submit" class="danger" id="delete">Delete account</button></form>
        </section>
        {{/player}}
        """

    static let challenges = """
        <form method="get" class="filters"><label>Game <input name="game" value="{{game}}" required></label>
        <label><input type="checkbox" name="open" value="1"{{#openOnly}} checked{{/openOnly}}> open only</label><button type="submit">Show</button></form>
        {{#error}}<p class="flash error">{{error}}</p>{{/error}}
        {{#listed}}
        <table id="challenge-list"><thead><tr><th>created</th><th>challenge</th><th>kind</th><th>issuer</th><th>participants</th><th>board / achievement</th><th>message</th><th>state</th><th>ends</th><th></th></tr></thead><tbody>
        {{#list}}<tr><td>{{createdAt}}</td><td><code>{{challengeId}}</code></td><td>{{kind}}</td><td><a href="/console/players?playerId={{issuerId}}">{{issuer}}</a></td><td>{{participants}}</td><td>{{target}}</td><td>{{message}}</td><td>{{state}}</td><td>{{endsAt}}</td><td>{{#endable}}<form method="post" action="/console/challenges/end"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="game" value="{{game}}"><input type="hidden" name="challenge" value="{{challengeId}}"><button type="submit" class="danger">End now</button></form>{{/endable}}</td></tr>{{/list}}
        {{^list}}<tr><td colspan="10">no challenges</td></tr>{{/list}}
        </tbody></table>
        {{/listed}}
        <h2>End by id</h2>
        <p>End a running time-boxed challenge now: it is decided as if its time had run out.</p>
        <form method="post" action="/console/challenges/end" class="danger-zone"><input type="hidden" name="csrf" value="{{csrf}}">
        <label>Game <input name="game" value="{{game}}" required></label>
        <label>Challenge id <input name="challenge" required></label>
        <button type="submit" class="danger">End now</button></form>
        {{#ended}}<h2>Ended</h2><dl><dt>challenge</dt><dd><code>{{challengeId}}</code></dd><dt>board</dt><dd>{{boardId}}</dd><dt>ends at</dt><dd>{{endsAt}}</dd><dt>participants</dt><dd>{{participants}}</dd></dl>{{/ended}}
        <h2>Recently ended by operators</h2>
        <table><thead><tr><th>when</th><th>what</th><th>game</th><th>challenge</th></tr></thead><tbody>
        {{#recent}}<tr><td>{{at}}</td><td>{{type}}</td><td>{{gameId}}</td><td>{{playerId}}</td></tr>{{/recent}}
        {{^recent}}<tr><td colspan="4">none in the audit log</td></tr>{{/recent}}
        </tbody></table>
        """

    static let events = """
        <form method="get" class="filters">
        <label>Game <input name="game" value="{{game}}"></label>
        <label>Player <input name="player" value="{{player}}"></label>
        <label>Event <input name="name" value="{{name}}"></label>
        <button type="submit">Filter</button>
        </form>
        <p>The latest events of the event log (head {{head}}), newest first; filters apply to the last {{window}}.</p>
        <table id="event-log"><thead><tr><th>seq</th><th>when</th><th>game</th><th>player</th><th>event</th><th>value</th></tr></thead><tbody>
        {{#rows}}<tr><td>{{seq}}</td><td>{{at}}</td><td>{{gameId}}</td><td><a href="/console/players?playerId={{playerId}}"><code>{{playerId}}</code></a></td><td>{{name}}</td><td>{{value}}</td></tr>{{/rows}}
        {{^rows}}<tr><td colspan="6">no events</td></tr>{{/rows}}
        </tbody></table>
        """

    static let audit = """
        <form method="get" class="filters">
        <label>Type <input name="type" value="{{type}}"></label>
        <label>Player <input name="player" value="{{player}}"></label>
        <button type="submit">Filter</button>
        </form>
        {{#error}}<p class="flash error">{{error}}</p>{{/error}}
        <table id="audit-log"><thead><tr><th>seq</th><th>when</th><th>who</th><th>from</th><th>what</th><th>player</th><th>outcome</th><th>payload</th></tr></thead><tbody>
        {{#entries}}<tr><td>{{seq}}</td><td>{{at}}</td><td>{{actor}}</td><td>{{transport}} {{peer}}</td><td>{{type}} {{gameId}}</td><td>{{playerId}}</td><td class="outcome-{{outcomeClass}}">{{outcome}}</td><td><code>{{payload}}</code></td></tr>{{/entries}}
        {{^entries}}<tr><td colspan="8">no entries</td></tr>{{/entries}}
        </tbody></table>
        {{#next}}<p><a href="{{next}}">older entries</a></p>{{/next}}
        """
}
