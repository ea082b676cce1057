/// The console's Mustache templates (swift-mustache), kept in the binary: no files to ship and
/// no build step. `{{x}}` escapes HTML; `{{{body}}}` is the page's own rendered HTML.
enum ConsoleTemplates {
    static let all: [String: String] = [
        "layout": layout, "login": login, "refused": refused, "overview": overview, "games": games,
        "leaderboards": leaderboards, "players": players, "challenges": challenges, "events": events, "audit": audit,
        "operators": operators,
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
        <datalist id="game-choices">{{#games}}<option value="{{gameId}}">{{gameId}} ({{leaderboards}} boards)</option>{{/games}}</datalist>
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

}
