/// The live map (`GET /`): one self-contained page, HTML, CSS and JavaScript, compiled into the
/// binary (no CDN, no build step, no resource files to install).
///
/// It draws `/api/topology` to scale in SVG (levels as tabs, each region as its beacon with its
/// radius and detection range, waypoints and links, gateways, room outlines from `areas` once the
/// topology has them), follows `/api/stream` (Server-Sent Events, see ``MapStreamEvent``) and shows
/// the selected client (`?client=ID`, or a click) from `/api/clients/{id}`. A token in `?token=`
/// is kept for the tab and sent as `Authorization: Bearer` to `fetch`, and as `?token=` to
/// `EventSource`, which cannot set headers.
///
/// For tests and tools the DOM says what it shows: every client drawn is an SVG element with
/// `data-client-id`, `data-kind`, `data-state` (`live`, `stale`, `suspended`, `absent`), `data-x`,
/// `data-y`; the side list has `data-list-client-id` (unplaced clients appear only there); every
/// region has `data-region-id`, and `data-monitored="true"` / `data-inside="true"` for the selected
/// client; `body` has `data-stream` (`connecting`, `open`, `error`) and `data-updates`.
enum MapPage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>BeaconFleet map</title>
        <style>
        :root { --bg:#f7f7f5; --ink:#222; --muted:#888; --region:#2b6cb0; --monitored:#dd6b20; --inside:#c53030;
                --phone:#2f855a; --tag:#6b46c1; --gw:#444; --off:#c53030; }
        * { box-sizing: border-box; }
        body { margin:0; font:13px/1.35 system-ui, sans-serif; color:var(--ink); background:var(--bg);
               display:grid; grid-template-columns: 1fr 300px; grid-template-rows: auto 1fr; height:100vh; }
        header { grid-column: 1 / 3; display:flex; gap:12px; align-items:center; padding:6px 10px; border-bottom:1px solid #ddd; background:#fff; }
        header h1 { font-size:15px; margin:0; }
        #levels button { border:1px solid #ccc; background:#fff; padding:3px 10px; cursor:pointer; }
        #levels button.active { background:var(--ink); color:#fff; }
        #status { margin-left:auto; color:var(--muted); }
        #mapbox { position:relative; overflow:hidden; }
        svg#map { width:100%; height:100%; display:block; cursor:grab; background:#fff; }
        #zoom { position:absolute; left:8px; top:8px; display:flex; flex-direction:column; gap:2px; }
        #zoom button { width:28px; height:28px; }
        aside { overflow:auto; border-left:1px solid #ddd; padding:8px 10px; background:#fff; }
        aside h2 { font-size:13px; margin:12px 0 4px; text-transform:uppercase; color:var(--muted); }
        #details dl { display:grid; grid-template-columns: auto 1fr; gap:2px 8px; margin:0; }
        #details dt { color:var(--muted); }
        #details dd { margin:0; word-break:break-word; }
        #clients li { cursor:pointer; list-style:none; padding:1px 0; }
        #clients ul { padding:0; margin:0; }
        #clients li.selected { font-weight:bold; }
        .st-stale, .st-suspended, .st-absent, .st-unplaced { color:var(--muted); }
        #legend svg { vertical-align:middle; }
        #legend div { margin:2px 0; }
        .region .range { fill:none; stroke:var(--region); stroke-opacity:.3; stroke-width:.08; stroke-dasharray:.5 .35; }
        .region .radius { fill:var(--region); fill-opacity:.08; stroke:var(--region); stroke-opacity:.7; stroke-width:.12; }
        .region .beacon { fill:var(--region); }
        .region[data-monitored="true"] .radius { fill:var(--monitored); fill-opacity:.3; stroke:var(--monitored); stroke-width:.2; }
        .region[data-monitored="true"] .range { stroke:var(--monitored); stroke-opacity:.5; }
        .region[data-monitored="true"] .beacon { fill:var(--monitored); }
        .region[data-inside="true"] .radius { stroke:var(--inside); stroke-width:.4; }
        .label { font-size:.9px; fill:#555; pointer-events:none; }
        .waypoint { fill:#999; }
        .link { stroke:#bbb; stroke-width:.15; }
        .area { fill:#eee; stroke:#999; stroke-width:.1; }
        .gateway rect { fill:var(--gw); }
        .gateway[data-online="false"] rect { fill:#fff; stroke:var(--off); stroke-width:.25; }
        .client circle.dot { stroke:#fff; stroke-width:.15; cursor:pointer; }
        .client[data-kind="phone"] circle.dot { fill:var(--phone); }
        .client[data-kind="tag"] circle.dot { fill:var(--tag); }
        .client[data-state="stale"] circle.dot, .client[data-state="suspended"] circle.dot, .client[data-state="absent"] circle.dot
          { fill:#aaa; stroke:#666; stroke-dasharray:.3 .2; }
        .client.selected circle.dot { stroke:#000; stroke-width:.3; }
        .client circle.conf { fill:none; stroke:#000; stroke-opacity:.3; stroke-width:.1; display:none; }
        .client.selected circle.conf { display:inline; }
        .trail { fill:none; stroke:#000; stroke-opacity:.45; stroke-width:.2; }
        .list-region[data-monitored="true"] { color:var(--monitored); font-weight:bold; }
        </style>
        </head>
        <body data-stream="connecting" data-updates="0">
        <header>
          <h1 id="venue">BeaconFleet</h1>
          <div id="levels"></div>
          <div id="status">connecting…</div>
        </header>
        <div id="mapbox">
          <svg id="map" xmlns="http://www.w3.org/2000/svg">
            <g id="areas"></g><g id="links"></g><g id="regions"></g><g id="waypoints"></g><g id="gateways"></g>
            <polyline id="trail" class="trail" points=""></polyline><g id="markers"></g><g id="scale"></g>
          </svg>
          <div id="zoom"><button id="zin" title="zoom in">+</button><button id="zout" title="zoom out">−</button><button id="zfit" title="fit">⤢</button></div>
        </div>
        <aside>
          <h2>Selected</h2>
          <div id="details">Click a client, or open <code>/?client=ID</code>.</div>
          <h2>Clients</h2>
          <div id="clients"></div>
          <h2>Regions without a place</h2>
          <div id="wildcards"></div>
          <h2>Legend</h2>
          <div id="legend">
            <div><svg width="18" height="18" viewBox="-9 -9 18 18"><circle r="8" fill="none" stroke="#2b6cb0" stroke-dasharray="2 1.5" stroke-opacity=".5"/><circle r="4" fill="#2b6cb0" fill-opacity=".15" stroke="#2b6cb0"/><circle r="1.5" fill="#2b6cb0"/></svg> region: beacon, radius, detection range (dashed)</div>
            <div><svg width="18" height="18" viewBox="-9 -9 18 18"><circle r="4" fill="#dd6b20" fill-opacity=".35" stroke="#dd6b20"/></svg> monitored by the selected client (red edge: inside)</div>
            <div><svg width="18" height="18" viewBox="-9 -9 18 18"><line x1="-8" y1="0" x2="8" y2="0" stroke="#bbb" stroke-width="2"/><circle r="2" fill="#999"/></svg> waypoint and walkable link</div>
            <div><svg width="18" height="18" viewBox="-9 -9 18 18"><rect x="-4" y="-4" width="8" height="8" fill="#444"/></svg> gateway online &nbsp;<svg width="18" height="18" viewBox="-9 -9 18 18"><rect x="-4" y="-4" width="8" height="8" fill="#fff" stroke="#c53030" stroke-width="1.5"/></svg> offline</div>
            <div><svg width="18" height="18" viewBox="-9 -9 18 18"><circle r="5" fill="#2f855a"/></svg> phone &nbsp;<svg width="18" height="18" viewBox="-9 -9 18 18"><circle r="5" fill="#6b46c1"/></svg> tag &nbsp;<svg width="18" height="18" viewBox="-9 -9 18 18"><circle r="5" fill="#aaa" stroke="#666" stroke-dasharray="2 1"/></svg> last known (stale, suspended or gone)</div>
            <div id="scaleLabel"></div>
          </div>
        </aside>
        <script>
        "use strict";
        const NS = "http://www.w3.org/2000/svg";
        const STALE_TAG_MS = 30000;       // a tag not heard for this long is stale
        const SUSPENDED_PHONE_MS = 60000; // a phone silent this long is suspended: its last report or wake
        const TRAIL = 30;
        const params = new URLSearchParams(location.search);
        let token = params.get("token") || sessionStorage.getItem("beaconfleet-token") || "";
        if (params.has("token")) {
          sessionStorage.setItem("beaconfleet-token", token);
          params.delete("token");
          history.replaceState(null, "", location.pathname + (params.toString() ? "?" + params : ""));
        }
        let selected = params.get("client");
        let topo = null, level = null, skew = 0, updates = 0, details = null, detailsAt = 0, detailsPending = false;
        const nodes = new Map();   // id -> {x, y, level}
        const clients = new Map(); // id -> marker + trail
        const gateways = new Map();
        const $ = (id) => document.getElementById(id);
        const svg = $("map");
        function el(name, attrs, parent) {
          const e = document.createElementNS(NS, name);
          for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
          if (parent) parent.appendChild(e);
          return e;
        }
        function headers() { return token ? { Authorization: "Bearer " + token } : {}; }
        async function api(path) {
          const r = await fetch(path, { headers: headers() });
          if (!r.ok) throw new Error(path + ": HTTP " + r.status);
          return r.json();
        }
        function now() { return Date.now() + skew; }
        function time(ms) { return new Date(ms).toLocaleTimeString(); }
        function stateOf(c) {
          if (c.x === null || c.x === undefined) return "unplaced";
          if (!c.present) return "absent";
          const age = now() - c.lastSeen;
          if (c.kind === "phone") return age > SUSPENDED_PHONE_MS ? "suspended" : "live";
          return age > STALE_TAG_MS ? "stale" : "live";
        }

        // ---- the venue ----
        let view = { x: 0, y: 0, w: 100, h: 100 };
        function setView(v) { view = v; svg.setAttribute("viewBox", `${v.x} ${v.y} ${v.w} ${v.h}`); drawScale(); }
        function fit() {
          const xs = [], ys = [];
          for (const n of nodes.values()) if (n.level === level) { xs.push(n.x); ys.push(-n.y); }
          for (const g of topo.gateways) if (g.level === level) { xs.push(g.x); ys.push(-g.y); }
          if (!xs.length) { xs.push(0); ys.push(0); }
          const pad = 6;
          const x0 = Math.min(...xs) - pad, x1 = Math.max(...xs) + pad, y0 = Math.min(...ys) - pad, y1 = Math.max(...ys) + pad;
          const box = svg.getBoundingClientRect();
          const aspect = box.width && box.height ? box.width / box.height : 1.5;
          let w = x1 - x0, h = y1 - y0;
          if (w / h < aspect) w = h * aspect; else h = w / aspect;
          setView({ x: (x0 + x1 - w) / 2, y: (y0 + y1 - h) / 2, w, h });
        }
        function drawScale() {
          const g = $("scale"); g.innerHTML = "";
          const len = Math.pow(10, Math.floor(Math.log10(view.w / 4)));
          const x = view.x + view.w * 0.04, y = view.y + view.h * 0.95;
          el("line", { x1: x, y1: y, x2: x + len, y2: y, stroke: "#000", "stroke-width": view.w / 400 }, g);
          const t = el("text", { x, y: y - view.h * 0.01, "font-size": view.w / 60 }, g); t.textContent = len + " m";
          $("scaleLabel").textContent = "scale bar: " + len + " m; drag to pan, wheel to zoom";
        }
        function drawTopology() {
          for (const id of ["areas", "links", "regions", "waypoints", "gateways"]) $(id).innerHTML = "";
          nodes.clear();
          for (const r of topo.regions) if (r.x !== null && r.level !== null) nodes.set(r.id, { x: r.x, y: r.y, level: r.level });
          for (const w of topo.waypoints) nodes.set(w.id, { x: w.x, y: w.y, level: w.level });
          // Room outlines: `areas` (polygons per level, [[x, y], …]) when the venue has rooms.
          for (const a of topo.areas || []) {
            if (a.level !== level || !a.polygon) continue;
            const room = el("polygon", { class: "area", "data-area-id": a.id, points: a.polygon.map(([x, y]) => `${x},${-y}`).join(" ") }, $("areas"));
            const t = document.createElementNS(NS, "title"); t.textContent = a.name || a.id; room.appendChild(t);
          }
          for (const l of topo.links) {
            const a = nodes.get(l.from), b = nodes.get(l.to);
            if (!a || !b || a.level !== level || b.level !== level) continue;
            el("line", { class: "link", x1: a.x, y1: -a.y, x2: b.x, y2: -b.y }, $("links"));
          }
          const wild = $("wildcards"); wild.innerHTML = "";
          for (const r of topo.regions) {
            if (r.x === null) {
              const d = document.createElement("div");
              d.className = "list-region"; d.dataset.regionId = r.id;
              d.textContent = r.id + (r.level ? " (level " + r.level + ")" : " (venue-wide)");
              wild.appendChild(d);
              continue;
            }
            if (r.level !== level) continue;
            const g = el("g", { class: "region", "data-region-id": r.id, transform: `translate(${r.x},${-r.y})` }, $("regions"));
            el("circle", { class: "range", r: Math.max(r.detection, r.radius) }, g);
            el("circle", { class: "radius", r: r.radius }, g);
            el("circle", { class: "beacon", r: 0.35 }, g);
            const t = el("text", { class: "label", x: 0.5, y: -0.5 }, g); t.textContent = r.id;
            const title = el("title", {}, g); title.textContent = `${r.id}: radius ${r.radius} m, detection ${r.detection} m`;
          }
          if (!wild.children.length) wild.textContent = "none";
          for (const w of topo.waypoints) if (w.level === level) el("circle", { class: "waypoint", cx: w.x, cy: -w.y, r: 0.2 }, $("waypoints"));
          for (const gw of topo.gateways) {
            if (gw.level !== level) continue;
            const g = el("g", { class: "gateway", "data-gateway-id": gw.id, "data-online": String(gateways.get(gw.id) ?? true), transform: `translate(${gw.x},${-gw.y})` }, $("gateways"));
            el("rect", { x: -0.45, y: -0.45, width: 0.9, height: 0.9 }, g);
            const title = el("title", {}, g); title.textContent = "gateway " + gw.id;
          }
          showMonitored();
        }
        function drawLevels() {
          const box = $("levels"); box.innerHTML = "";
          for (const l of topo.levels) {
            const b = document.createElement("button");
            b.textContent = l.name || l.id; b.dataset.level = l.id;
            if (l.id === level) b.className = "active";
            b.onclick = () => { level = l.id; drawLevels(); drawTopology(); fit(); renderAll(); };
            box.appendChild(b);
          }
        }
        async function loadTopology() {
          topo = await api("/api/topology");
          $("venue").textContent = topo.name + " · " + topo.revision;
          if (!topo.levels.some(l => l.id === level)) level = topo.levels.length ? topo.levels[0].id : null;
          drawLevels(); drawTopology(); fit();
        }

        // ---- pan and zoom ----
        let drag = null;
        svg.addEventListener("pointerdown", (e) => { drag = { x: e.clientX, y: e.clientY, view: { ...view } }; svg.setPointerCapture(e.pointerId); });
        svg.addEventListener("pointermove", (e) => {
          if (!drag) return;
          const box = svg.getBoundingClientRect(), k = view.w / box.width;
          setView({ ...drag.view, x: drag.view.x - (e.clientX - drag.x) * k, y: drag.view.y - (e.clientY - drag.y) * k });
        });
        svg.addEventListener("pointerup", () => { drag = null; });
        function zoom(factor, cx, cy) {
          const w = view.w * factor, h = view.h * factor;
          setView({ x: cx - (cx - view.x) * factor, y: cy - (cy - view.y) * factor, w, h });
        }
        svg.addEventListener("wheel", (e) => {
          e.preventDefault();
          const box = svg.getBoundingClientRect();
          const cx = view.x + (e.clientX - box.left) / box.width * view.w, cy = view.y + (e.clientY - box.top) / box.height * view.h;
          zoom(e.deltaY > 0 ? 1.15 : 1 / 1.15, cx, cy);
        }, { passive: false });
        $("zin").onclick = () => zoom(1 / 1.3, view.x + view.w / 2, view.y + view.h / 2);
        $("zout").onclick = () => zoom(1.3, view.x + view.w / 2, view.y + view.h / 2);
        $("zfit").onclick = () => fit();

        // ---- clients ----
        function apply(m) {
          let c = clients.get(m.id);
          if (!c) { c = { trail: [] }; clients.set(m.id, c); }
          Object.assign(c, m);
          if (m.x !== null) {
            const last = c.trail[c.trail.length - 1];
            if (!last || last.x !== m.x || last.y !== m.y || last.level !== m.level) c.trail.push({ x: m.x, y: m.y, level: m.level });
            if (c.trail.length > TRAIL) c.trail.shift();
          }
          render(c);
          if (m.id === selected) loadDetails();
        }
        function remove(id) {
          const c = clients.get(id);
          if (c && c.node) c.node.remove();
          clients.delete(id);
          if (id === selected) { details = null; showDetails(); }
        }
        function render(c) {
          const state = stateOf(c);
          c.state = state;
          if (state === "unplaced" || c.level !== level) {
            if (c.node) { c.node.remove(); c.node = null; }
            return;
          }
          if (!c.node) {
            c.node = el("g", { class: "client", "data-client-id": c.id }, $("markers"));
            el("circle", { class: "conf" }, c.node);
            el("circle", { class: "dot", r: 0.6 }, c.node);
            el("title", {}, c.node);
            const t = el("text", { class: "label", x: 0.8, y: 0.3 }, c.node); t.textContent = c.id;
            c.node.addEventListener("pointerdown", (e) => e.stopPropagation());
            c.node.addEventListener("click", () => select(c.id));
          }
          c.node.setAttribute("transform", `translate(${c.x},${-c.y})`);
          c.node.dataset.kind = c.kind; c.node.dataset.state = state;
          c.node.dataset.x = c.x; c.node.dataset.y = c.y; c.node.dataset.level = c.level;
          c.node.classList.toggle("selected", c.id === selected);
          c.node.querySelector("circle.conf").setAttribute("r", c.confidence || 0);
          c.node.querySelector("title").textContent = `${c.id} (${c.kind}, ${state}) last ${time(c.lastSeen)}`;
          if (c.id === selected) drawTrail(c);
        }
        function drawTrail(c) {
          const pts = c ? c.trail.filter(p => p.level === level).map(p => `${p.x},${-p.y}`).join(" ") : "";
          $("trail").setAttribute("points", pts);
        }
        function renderAll() { for (const c of clients.values()) render(c); drawTrail(clients.get(selected)); listClients(); }
        const ORDER = { unplaced: 0, absent: 1, suspended: 2, stale: 3, live: 4 };
        function listClients() {
          const all = [...clients.values()];
          all.sort((a, b) => (ORDER[a.state] - ORDER[b.state]) || (a.id < b.id ? -1 : 1));
          const box = $("clients"), ul = document.createElement("ul");
          const counts = {};
          for (const c of all) counts[c.state] = (counts[c.state] || 0) + 1;
          for (const c of all.slice(0, 300)) {
            const li = document.createElement("li");
            li.dataset.listClientId = c.id; li.dataset.state = c.state; li.className = "st-" + c.state + (c.id === selected ? " selected" : "");
            const where = c.state === "unplaced" ? "not placed yet" : c.state === "live" ? `${c.level} ${c.x}, ${c.y}` : `last known ${c.level} ${c.x}, ${c.y} at ${time(c.lastSeen)}`;
            li.textContent = `${c.id} · ${c.kind} · ${c.state} · ${where}`;
            li.onclick = () => select(c.id);
            ul.appendChild(li);
          }
          box.innerHTML = "";
          const summary = document.createElement("div");
          summary.textContent = `${all.length} clients: ` + Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(", ") + (all.length > 300 ? " (first 300 listed)" : "");
          box.appendChild(summary); box.appendChild(ul);
        }
        function select(id) {
          selected = id;
          const p = new URLSearchParams(location.search); p.set("client", id);
          history.replaceState(null, "", location.pathname + "?" + p);
          details = null; showDetails(); loadDetails(true); renderAll();
        }
        async function loadDetails(force) {
          if (!selected) return;
          const t = Date.now();
          if (!force && t - detailsAt < 1000) {  // at most one fetch a second; the newest is fetched after
            if (!detailsPending) { detailsPending = true; setTimeout(() => { detailsPending = false; loadDetails(true); }, 1000 - (t - detailsAt)); }
            return;
          }
          detailsAt = t;
          const id = selected;
          try {
            const d = await api("/api/clients/" + encodeURIComponent(id));
            if (id === selected) { details = d; showDetails(); }
          } catch (e) { if (id === selected) { details = { error: String(e) }; showDetails(); } }
        }
        function showDetails() {
          const box = $("details");
          document.body.dataset.selectedClient = selected || "";
          if (!selected) { box.textContent = "Click a client, or open /?client=ID."; showMonitored(); return; }
          if (!details) { box.textContent = selected + ": loading…"; showMonitored(); return; }
          if (details.error) { box.textContent = selected + ": " + details.error; showMonitored(); return; }
          const d = details, c = clients.get(d.id) || {};
          const rows = [
            ["client", d.id], ["kind", d.kind], ["state", c.id ? stateOf(c) : "not on the stream yet"], ["version", d.version],
            ["last report", d.lastSeen ? new Date(d.lastSeen).toLocaleString() : "never"],
            ["position", d.position ? `${d.position.level} ${d.position.x}, ${d.position.y}` : "not placed"],
            ["confidence", d.position && d.position.confidence != null ? d.position.confidence + " m" : "–"],
            ["room", d.position && d.position.room ? d.position.room : "–"],
            ["present", String(d.present)], ["inside", d.inside.join(", ") || "none"],
            ["monitored", `${d.regions.length}: ${d.regions.join(", ")}`],
          ];
          box.innerHTML = "<dl></dl>";
          for (const [k, v] of rows) {
            const dt = document.createElement("dt"), dd = document.createElement("dd");
            dt.textContent = k; dd.textContent = v; dd.dataset.field = k;
            box.firstChild.append(dt, dd);
          }
          showMonitored();
        }
        function showMonitored() {
          const monitored = new Set(details && details.regions ? details.regions : []);
          const inside = new Set(details && details.inside ? details.inside : []);
          for (const e of document.querySelectorAll("[data-region-id]")) {
            e.dataset.monitored = String(monitored.has(e.dataset.regionId));
            e.dataset.inside = String(inside.has(e.dataset.regionId));
          }
        }
        function setGateways(list) {
          for (const g of list) gateways.set(g.id, g.online);
          for (const e of document.querySelectorAll("[data-gateway-id]")) e.dataset.online = String(gateways.get(e.dataset.gatewayId) ?? true);
        }

        // ---- the stream ----
        function status(text) { $("status").textContent = text; }
        function connect() {
          const source = new EventSource("/api/stream" + (token ? "?token=" + encodeURIComponent(token) : ""));
          source.addEventListener("snapshot", (e) => {
            const s = JSON.parse(e.data);
            skew = s.time - Date.now();
            for (const c of clients.values()) if (c.node) c.node.remove();
            clients.clear();
            for (const m of s.clients) apply(m);
            setGateways(s.gateways);
            document.body.dataset.stream = "open";
            status(`live · ${s.clients.length} clients`);
            renderAll();
          });
          source.addEventListener("update", (e) => {
            const u = JSON.parse(e.data);
            skew = u.time - Date.now();
            for (const m of u.clients) apply(m);
            for (const id of u.removed) remove(id);
            if (u.gateways) setGateways(u.gateways);
            if (u.topology) loadTopology().then(renderAll);
            updates += 1;
            document.body.dataset.updates = String(updates);
            status(`live · ${clients.size} clients · updated ${new Date(u.time).toLocaleTimeString()}` + (u.dropped ? ` · ${u.dropped} updates dropped` : ""));
          });
          source.onerror = () => { document.body.dataset.stream = "error"; status("stream interrupted; reconnecting…"); };
        }
        setInterval(renderAll, 5000);  // ages: live → stale or suspended without a new message
        loadTopology().then(() => { connect(); if (selected) select(selected); })
          .catch((e) => { document.body.dataset.stream = "error"; status("cannot load the venue: " + e.message); });
        </script>
        </body>
        </html>
        """#
}
