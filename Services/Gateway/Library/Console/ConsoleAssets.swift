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
        .swatch.p50 { background: #1c7c4a; }
        .swatch.p95 { background: #c77700; }
        .swatch.p99 { background: #8a2be2; }
        canvas.chart { width: 100%; height: auto; display: block; }
        textarea { font: inherit; padding: .3rem .45rem; border: 1px solid #b9c0cd; border-radius: 4px; min-width: 18rem; max-width: 100%; }
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
        // On a narrow screen the navigation scrolls sideways: bring the current page into view.
        const current = document.querySelector("header nav a[aria-current=page]");
        if (current && current.parentElement.scrollWidth > current.parentElement.clientWidth) {
          current.parentElement.scrollLeft = current.offsetLeft - current.parentElement.offsetLeft - 8;
        }
        // Forms that undo something ask first (data-confirm holds the question).
        for (const form of document.querySelectorAll("form[data-confirm]")) {
          form.addEventListener("submit", (event) => {
            if (!window.confirm(form.dataset.confirm)) event.preventDefault();
          });
        }
        // The overview refreshes itself every 5 s from /console/api/overview: process cards, totals,
        // stream lag, and two charts of the last ten minutes (5 s slots) with a time axis: requests
        // and errors per second, and the p50/p95/p99 latency in ms.
        const traffic = document.getElementById("traffic");
        if (traffic) {
          const latency = document.getElementById("latency");
          const clock = (ms) => new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
          // Drawn at the canvas's size on screen (sharp at 375 px and on dense screens). Requests
          // on a linear scale; latency on a logarithmic one (p50 stays readable under a slow p99).
          const chart = (canvas, points, series, unit) => {
            const ratio = window.devicePixelRatio || 1;
            const w = Math.max(280, canvas.clientWidth || 720), h = w < 500 ? 170 : 200;
            canvas.width = Math.round(w * ratio); canvas.height = Math.round(h * ratio);
            const g = canvas.getContext("2d");
            g.setTransform(ratio, 0, 0, ratio, 0, 0);
            const left = 58, right = 8, top = 10, bottom = 22;
            g.clearRect(0, 0, w, h);
            const values = points.flatMap((p) => series.map(([key]) => p[key])).filter((v) => v != null);
            const log = unit === "ms";
            const low = log ? Math.pow(10, Math.floor(Math.log10(Math.max(0.01, Math.min(...values, 1))))) : 0;
            const high = log ? Math.pow(10, Math.ceil(Math.log10(Math.max(low * 10, ...values)))) : Math.max(0.2, ...values);
            const scale = (v) => log ? (Math.log10(Math.max(v, low)) - Math.log10(low)) / (Math.log10(high) - Math.log10(low)) : v / high;
            const x = (i) => left + (i / Math.max(1, points.length - 1)) * (w - left - right);
            const y = (v) => h - bottom - scale(v) * (h - top - bottom);
            g.font = "11px system-ui"; g.fillStyle = "#5b6475"; g.strokeStyle = "#e4e7ee"; g.lineWidth = 1;
            const marks = [];
            if (log) { for (let v = low; v <= high * 1.001; v *= 10) marks.push(v); } else { marks.push(0, high / 2, high); }
            for (const v of marks) {  // the value axis
              g.beginPath(); g.moveTo(left, y(v)); g.lineTo(w - right, y(v)); g.stroke();
              const label = v >= 10 || v === 0 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : String(Number(v.toPrecision(1)));
              g.fillText(label + " " + unit, 2, y(v) + 4);
            }
            const every = w < 500 ? 240000 : 120000;  // the time axis: a tick every 2 (narrow: 4) minutes
            points.forEach((p, i) => {
              if (p.at % every !== 0) return;
              g.beginPath(); g.moveTo(x(i), h - bottom); g.lineTo(x(i), h - bottom + 4); g.stroke();
              g.fillText(clock(p.at), Math.min(w - 34, Math.max(left, x(i) - 15)), h - 6);
            });
            for (const [key, color] of series) {
              g.strokeStyle = color; g.fillStyle = color; g.lineWidth = 2;
              points.forEach((p, i) => {
                if (p[key] == null) return;
                const before = i > 0 && points[i - 1][key] != null;
                const after = i + 1 < points.length && points[i + 1][key] != null;
                if (before) {
                  g.beginPath(); g.moveTo(x(i - 1), y(points[i - 1][key])); g.lineTo(x(i), y(p[key])); g.stroke();
                } else if (!after) {  // a slot alone between quiet ones: a dot
                  g.beginPath(); g.arc(x(i), y(p[key]), 2.5, 0, 2 * Math.PI); g.fill();
                }
              });
            }
          };
          const text = (id, value) => { const e = document.getElementById(id); if (e) e.textContent = value; };
          const cell = (value) => { const td = document.createElement("td"); td.textContent = String(value); return td; };
          const show = (now) => {
            const per = now.slotSeconds || 5;
            const points = now.timeline.map((p) => ({
              at: p.at, requests: p.requests / per, errors: p.errors / per,
              p50: p.p50 ?? null, p95: p.p95 ?? null, p99: p.p99 ?? null,
            }));
            chart(traffic, points, [["requests", "#2f5fd0"], ["errors", "#b3261e"]], "/s");
            chart(latency, points, [["p50", "#1c7c4a"], ["p95", "#c77700"], ["p99", "#8a2be2"]], "ms");
            const busy = now.timeline.filter((p) => p.requests > 0);
            traffic.dataset.samples = String(busy.length);
            latency.dataset.samples = String(busy.filter((p) => p.p99 != null).length);
            const last = busy[busy.length - 1];
            text("latency-now", last ? `Latest 5 s with requests (${clock(last.at)}): p50 ${last.p50} ms, p95 ${last.p95} ms, p99 ${last.p99} ms, max ${last.max} ms over ${last.requests} requests.` : "No requests in the last ten minutes.");
            text("requests", now.requests); text("errors", now.errors); text("head", now.eventLogHead);
            for (const process of now.processes) {
              const card = document.querySelector(`.card[data-process="${CSS.escape(process.name)}"]`);
              if (!card) continue;
              card.classList.toggle("ok", process.ready); card.classList.toggle("down", !process.ready);
              card.querySelector(".state").textContent = process.ready ? "ready" : "not ready";
              const detail = card.querySelector(".detail"); if (detail) detail.textContent = process.detail;
            }
            const lag = document.getElementById("lag");
            if (lag && now.streams.length) {
              lag.replaceChildren(...now.streams.map((s) => {
                const row = document.createElement("tr");
                row.append(cell(s.service), cell(s.stream), cell(s.position), cell(s.head), cell(s.lag));
                return row;
              }));
            }
            text("updated", "Updated " + new Date(now.time).toLocaleTimeString() + "; refreshes every 5 s by itself.");
          };
          const poll = async () => {
            try {
              const response = await fetch("/console/api/overview", { credentials: "same-origin", cache: "no-store" });
              if (response.ok) show(await response.json());
              else text("updated", "Not updated: the console answered " + response.status + " (log in again?).");
            } catch (error) {
              text("updated", "Not updated: the gateway did not answer; trying again in 5 s.");
            }
          };
          poll();
          setInterval(poll, 5000);
        }
        """
}
