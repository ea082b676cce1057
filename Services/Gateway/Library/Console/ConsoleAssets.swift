/// The console's stylesheet and script, served from `/console/static/` (the Content-Security-Policy
/// allows only the console's own files: no inline script or style).
enum ConsoleAssets {
    static let css = """
        :root { --ink: #1d2330; --muted: #5b6475; --line: #d9dde5; --ok: #1c7c4a; --bad: #b3261e; --accent: #2f5fd0; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: #f6f7f9; }
        header { display: flex; align-items: center; gap: 1.5rem; padding: .6rem 1.2rem; background: #1d2330; color: #fff; }
        header .brand { font-weight: 700; font-size: 1.1rem; }
        header .brand small { font-weight: 400; opacity: .7; }
        header nav { display: flex; gap: .2rem; flex: 1; flex-wrap: wrap; }
        header nav a { color: #cfd6e6; text-decoration: none; padding: .3rem .6rem; border-radius: 4px; }
        header nav a[aria-current=page], header nav a:hover { background: #38415a; color: #fff; }
        header .logout button { background: transparent; color: #cfd6e6; border: 1px solid #56607a; }
        header .who { font-size: .85rem; opacity: .8; margin-left: auto; }
        details summary { cursor: pointer; margin: .8rem 0 .4rem; }
        main { padding: 1rem 1.4rem 3rem; max-width: 1200px; }
        h1 { margin: .2rem 0 1rem; font-size: 1.5rem; }
        h2 { font-size: 1.15rem; margin: 1.6rem 0 .5rem; }
        table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); }
        th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
        th { background: #eef1f6; font-weight: 600; font-size: .9rem; }
        code { font: 13px ui-monospace, SFMono-Regular, Menlo, monospace; word-break: break-all; }
        form { margin: 0; }
        .filters { display: flex; gap: .8rem; align-items: end; flex-wrap: wrap; margin-bottom: 1rem; }
        label { display: inline-flex; flex-direction: column; gap: .2rem; font-size: .85rem; color: var(--muted); }
        input, select { font: inherit; padding: .3rem .45rem; border: 1px solid #b9c0cd; border-radius: 4px; color: var(--ink); }
        button { font: inherit; padding: .3rem .8rem; border-radius: 4px; border: 1px solid #9aa4b8; background: #fff; cursor: pointer; }
        button.danger { border-color: var(--bad); color: var(--bad); }
        .danger-zone { border: 1px solid #efc3bf; background: #fff6f5; padding: .8rem; border-radius: 6px; display: flex; gap: .8rem; align-items: end; flex-wrap: wrap; }
        .scroll { overflow-x: auto; }
        form.inline { display: inline-flex; gap: .4rem; align-items: center; margin-left: .4rem; }
        /* Narrow screens (375 px): wide tables scroll inside the page, the header stays short. */
        @media (max-width: 640px) {
          main table { display: block; overflow-x: auto; max-width: 100%; }
          header { flex-wrap: wrap; gap: .4rem; padding: .4rem .6rem; }
          header nav { order: 3; flex-basis: 100%; flex-wrap: nowrap; overflow-x: auto; }
          header nav a { padding: .2rem .45rem; font-size: .85rem; white-space: nowrap; }
          main { padding: .6rem .7rem 2rem; }
          label { max-width: 100%; }
          input, select { max-width: 100%; box-sizing: border-box; }
        }
        .danger-zone label:has(input[type=checkbox]) { flex-direction: row; align-items: center; color: var(--ink); }
        .flash { background: #e8f0fe; border: 1px solid #b6c9f5; padding: .5rem .8rem; border-radius: 5px; }
        .flash.error { background: #fdecea; border-color: #f1b9b4; color: var(--bad); }
        .cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); gap: .8rem; }
        .card { background: #fff; border: 1px solid var(--line); border-left: 5px solid var(--ok); border-radius: 6px; padding: .6rem .8rem; }
        .card.down { border-left-color: var(--bad); }
        .card h2 { margin: 0; font-size: 1rem; }
        .card .state { margin: .2rem 0 0; font-weight: 600; color: var(--ok); }
        .card.down .state { color: var(--bad); }
        .card .detail { margin: .2rem 0 0; color: var(--muted); font-size: .85rem; }
        canvas { background: #fff; border: 1px solid var(--line); max-width: 100%; }
        .legend { color: var(--muted); font-size: .85rem; }
        .swatch { display: inline-block; width: .8rem; height: .8rem; vertical-align: middle; margin: 0 .2rem 0 .6rem; }
        .swatch.requests { background: var(--accent); }
        .swatch.errors { background: var(--bad); }
        .bar { display: inline-block; width: 140px; height: .7rem; background: #e4e7ee; border-radius: 3px; vertical-align: middle; overflow: hidden; }
        .bar .fill { display: block; height: 100%; width: 0; background: #c28a12; }
        dl { display: grid; grid-template-columns: 8rem 1fr; gap: .25rem .8rem; background: #fff; border: 1px solid var(--line); padding: .8rem; }
        dt { color: var(--muted); }
        dd { margin: 0; }
        .profile form { margin-top: .8rem; }
        .outcome-error { color: var(--bad); font-weight: 600; }
        body.login main { max-width: 420px; margin: 10vh auto; background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 1.5rem 2rem; }
        body.login form { display: flex; flex-direction: column; gap: .8rem; }
        .hint { color: var(--muted); font-size: .85rem; }
        """

    static let javascript = """
        "use strict";
        // Rarity bars: the width comes from data-percent (no inline styles under the CSP).
        for (const fill of document.querySelectorAll(".bar .fill[data-percent]")) {
          const percent = Math.max(0, Math.min(100, Number(fill.dataset.percent) || 0));
          fill.style.width = percent + "%";
        }
        // Forms that undo something ask first (data-confirm holds the question).
        for (const form of document.querySelectorAll("form[data-confirm]")) {
          form.addEventListener("submit", (event) => {
            if (!window.confirm(form.dataset.confirm)) event.preventDefault();
          });
        }
        // The overview's live chart: requests and errors per second, polled every 2 s.
        const canvas = document.getElementById("traffic");
        if (canvas) {
          const points = [];
          let last = null;
          const draw = () => {
            const g = canvas.getContext("2d");
            const w = canvas.width, h = canvas.height, pad = 24;
            g.clearRect(0, 0, w, h);
            const top = Math.max(1, ...points.map((p) => p.requests));
            g.fillStyle = "#5b6475"; g.font = "12px system-ui";
            g.fillText(top.toFixed(1) + "/s", 4, 14); g.fillText("0", 4, h - 6);
            g.strokeStyle = "#d9dde5"; g.beginPath(); g.moveTo(pad, h - pad / 2); g.lineTo(w, h - pad / 2); g.stroke();
            for (const [key, color] of [["requests", "#2f5fd0"], ["errors", "#b3261e"]]) {
              g.strokeStyle = color; g.lineWidth = 2; g.beginPath();
              points.forEach((p, i) => {
                const x = pad + (i / 59) * (w - pad - 4);
                const y = h - pad / 2 - (p[key] / top) * (h - pad);
                if (i === 0) g.moveTo(x, y); else g.lineTo(x, y);
              });
              g.stroke();
            }
          };
          const poll = async () => {
            try {
              const response = await fetch("/console/api/overview", { credentials: "same-origin", cache: "no-store" });
              if (response.ok) {
                const now = await response.json();
                if (last) {
                  const seconds = Math.max(0.001, (now.time - last.time) / 1000);
                  points.push({ requests: (now.requests - last.requests) / seconds, errors: (now.errors - last.errors) / seconds });
                  while (points.length > 60) points.shift();
                }
                last = now;
                document.getElementById("requests").textContent = now.requests;
                document.getElementById("errors").textContent = now.errors;
                document.getElementById("head").textContent = now.eventLogHead;
                canvas.dataset.samples = String(points.length);
                draw();
              }
            } catch (error) { /* the next poll tries again */ }
          };
          poll();
          setInterval(poll, 2000);
        }
        """
}
