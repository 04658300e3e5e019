// The dashboard: an operator view over /api/analytics/* and an analyst view over /api/insights/*,
// the cached results and the server-side SVG pictures. The API key lives in the variable below only:
// never in localStorage, sessionStorage, a cookie or the URL, so reloading the page forgets it.
"use strict";
(function () {
  let apiKey = "";
  const $ = (id) => document.getElementById(id);
  const charts = {};

  // api fetches a keyed JSON route; a failure throws an Error carrying the envelope's status and code.
  async function api(path) {
    const r = await fetch(path, { headers: { "X-API-Key": apiKey }, credentials: "omit", cache: "no-store" });
    let body = null;
    try { body = await r.json(); } catch (e) { body = null; }
    if (!r.ok) {
      const err = new Error((body && body.message) || ("HTTP " + r.status));
      err.status = r.status;
      err.code = body && body.code;
      throw err;
    }
    return body;
  }

  // el builds an element with text content (never HTML: names come from outside sources).
  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function row(cells, numeric) {
    const tr = document.createElement("tr");
    cells.forEach((c, i) => {
      const td = c instanceof Node ? wrap(c) : el("td", c);
      if (numeric && numeric.includes(i)) td.className = "n";
      tr.appendChild(td);
    });
    return tr;
  }
  function wrap(node) { const td = document.createElement("td"); td.appendChild(node); return td; }
  function fill(tableId, rows, emptyText, width) {
    const tb = $(tableId).querySelector("tbody");
    tb.replaceChildren(...rows);
    if (rows.length === 0) {
      const td = el("td", emptyText, "muted");
      td.colSpan = width;
      const tr = document.createElement("tr");
      tr.appendChild(td);
      tb.appendChild(tr);
    }
  }
  function show(id, text) { const m = $(id); m.textContent = text || ""; m.hidden = !text; }
  const fmt = (v, d) => (v === null || v === undefined ? "-" : Number(v).toLocaleString("en-US", { maximumFractionDigits: d === undefined ? 0 : d }));
  const pctOf = (f) => (f === null || f === undefined ? "-" : (f * 100).toFixed(1) + "%");
  const bpPct = (bp) => (Number(bp) / 100).toFixed(2) + "%";
  const q = (o) => Object.entries(o).filter(([, v]) => v !== "" && v !== null && v !== undefined)
    .map(([k, v]) => encodeURIComponent(k) + "=" + encodeURIComponent(v)).join("&");

  // ---- key ----
  function useKey() {
    const v = $("key").value.trim();
    if (!v) return;
    apiKey = v;
    $("key").value = "";
    $("key-state").textContent = "Key in memory (" + v.slice(0, 8) + "...).";
    $("forget-key").hidden = false;
    $("tabs").hidden = false;
    select(currentView || "operator");
  }
  function forgetKey() {
    apiKey = "";
    $("key-state").textContent = "Key forgotten.";
    $("forget-key").hidden = true;
    $("tabs").hidden = true;
    document.querySelectorAll(".view").forEach((v) => { v.hidden = true; });
  }
  $("use-key").addEventListener("click", useKey);
  $("key").addEventListener("keydown", (e) => { if (e.key === "Enter") useKey(); });
  $("forget-key").addEventListener("click", forgetKey);

  // ---- views ----
  let currentView = "";
  function select(view) {
    currentView = view;
    document.querySelectorAll(".tab").forEach((t) => t.setAttribute("aria-selected", String(t.dataset.view === view)));
    document.querySelectorAll(".view").forEach((v) => { v.hidden = v.id !== "view-" + view; });
    if (view === "operator") loadOperator(); else loadAnalyst();
  }
  document.querySelectorAll(".tab").forEach((t) => t.addEventListener("click", () => select(t.dataset.view)));

  // ---- operator ----
  function range() {
    const days = Number($("op-range").value);
    const to = new Date();
    const from = new Date(to.getTime() - days * 86400000);
    return { from: from.toISOString().replace(/\.\d+Z$/, "Z"), to: to.toISOString().replace(/\.\d+Z$/, "Z"), granularity: days <= 2 ? "hour" : "day",
      span: [Math.floor(from.getTime() / 1000), Math.floor(to.getTime() / 1000)] };
  }
  async function loadOperator() {
    const r = range();
    show("op-message", "");
    $("op-content").hidden = false;
    let usage, routes, keys, quota;
    try {
      [usage, routes, keys, quota] = await Promise.all([
        api("/api/analytics/usage?" + q({ from: r.from, to: r.to, granularity: r.granularity, group_by: "none" })),
        api("/api/analytics/routes?" + q({ from: r.from, to: r.to })),
        api("/api/analytics/top-keys?" + q({ from: r.from, to: r.to, limit: 10 })),
        api("/api/analytics/quota-events?" + q({ from: r.from, to: r.to, limit: 100 })),
      ]);
    } catch (e) {
      $("op-content").hidden = true;
      show("op-message", e.status === 403
        ? "The operator view needs an operator key (plan internal); this key is not one. The analyst view works with any key."
        : "Could not load usage analytics: " + e.message);
      return;
    }
    const t = usage.totals || {};
    const cards = [["Requests", fmt(t.requests)], ["Tokens", fmt(t.tokens)], ["4xx", fmt(t.errors_4xx)], ["5xx", fmt(t.errors_5xx)],
      ["p50 ms", fmt(t.p50_ms, 1)], ["p95 ms", fmt(t.p95_ms, 1)], ["p99 ms", fmt(t.p99_ms, 1)]];
    $("op-totals").replaceChildren(...cards.map(([k, v]) => { const d = el("div", null, "card"); d.appendChild(el("span", k, "muted")); d.appendChild(el("b", v)); return d; }));
    const pts = (usage.series && usage.series[0] && usage.series[0].points) || [];
    const xs = pts.map((p) => Date.parse(p.time) / 1000);
    plot("chart-usage", r.span, [xs, pts.map((p) => p.requests), pts.map((p) => p.errors_4xx), pts.map((p) => p.errors_5xx)],
      [{ label: "requests", stroke: "#0969da" }, { label: "4xx", stroke: "#bf8700" }, { label: "5xx", stroke: "#b42318" }]);
    plot("chart-latency", r.span, [xs, pts.map((p) => p.p50_ms), pts.map((p) => p.p95_ms), pts.map((p) => p.p99_ms)],
      [{ label: "p50", stroke: "#1a7f37" }, { label: "p95", stroke: "#bf8700" }, { label: "p99", stroke: "#b42318" }]);
    fill("op-routes", routes.routes.map((x) => row([x.method, x.route, fmt(x.requests), fmt(x.tokens), fmt(x.errors_4xx), fmt(x.errors_5xx),
      pctOf(x.error_rate), fmt(x.p50_ms, 1), fmt(x.p95_ms, 1), fmt(x.p99_ms, 1)], [2, 3, 4, 5, 6, 7, 8, 9])), "No requests in this range.", 10);
    fill("op-keys", keys.keys.map((k) => row([k.key_prefix, k.user_id, k.plan, fmt(k.requests), fmt(k.tokens), fmt(k.overage_tokens), fmt(k.errors)], [3, 4, 5, 6])),
      "No keys used in this range.", 7);
    fill("op-quota", quota.events.map((ev) => row([ev.time.replace("T", " ").replace("Z", ""), ev.kind === "quota_exhausted" ? "quota exhausted" : "overage started",
      ev.key_prefix, ev.plan, fmt(ev.requests)], [4])), "No quota events in this range.", 5);
  }
  // plot draws a time series over the whole range asked for (not only the buckets that have requests).
  function plot(id, span, data, series) {
    const box = $(id);
    if (charts[id]) { charts[id].destroy(); delete charts[id]; }
    box.replaceChildren();
    if (data[0].length === 0) { box.appendChild(el("p", "No data in this range.", "muted")); return; }
    charts[id] = new uPlot({ width: Math.max(320, box.clientWidth || 480), height: 240, series: [{}].concat(series.map((s) => Object.assign({ width: 2 }, s))),
      axes: [{}, { size: 60 }], scales: { x: { time: true, range: span } } }, data, box);
  }
  $("op-refresh").addEventListener("click", loadOperator);
  $("op-range").addEventListener("change", loadOperator);

  // ---- analyst ----
  let indicesLoaded = false;
  async function loadAnalyst() {
    show("an-message", "");
    if (!indicesLoaded) {
      try {
        const ix = await api("/api/screen-bulk/indices");
        $("an-index").replaceChildren(...ix.indices.map((i) => { const o = el("option", i.index_name + " - " + i.description); o.value = i.index_name; return o; }));
        if (ix.indices.some((i) => i.index_name === "SP500")) $("an-index").value = "SP500";
        indicesLoaded = true;
      } catch (e) {
        show("an-message", "Could not list the indices: " + e.message);
        return;
      }
    }
    loadDrift();
  }
  async function loadDrift() {
    const index = $("an-index").value, methodology = $("an-methodology").value, quarters = $("an-quarters").value;
    show("an-message", "");
    $("an-drift-box").hidden = false;
    $("an-symbol-page").hidden = true;
    let drift, medians;
    try {
      [drift, medians] = await Promise.all([
        api("/api/insights/drift?" + q({ index, methodology, quarters, ruleset: "spec" })),
        api("/api/insights/sector-medians?" + q({ index, quarters })),
      ]);
    } catch (e) {
      show("an-message", "Could not load the drift of " + index + ": " + e.message);
      return;
    }
    const lo = drift.left_out || {};
    $("an-drift-note").textContent = drift.considered + " companies considered; left out: " + (lo.illustrative || 0) + " illustrative, " +
      (lo.no_filed_quarters || 0) + " without filed quarters.";
    fill("an-drift", drift.companies.map((c) => {
      const img = document.createElement("img");
      img.src = "/api/insights/" + encodeURIComponent(c.symbol) + "/trajectory.svg?" + q({ view: "sparkline", ratio: c.ratio, ruleset: drift.ruleset, methodology: c.methodology });
      img.alt = c.symbol + " " + c.ratio + " sparkline";
      img.width = 120; img.height = 28;
      const dir = el("span", c.direction, c.direction === "across" ? "across" : "");
      const tr = row([c.symbol, c.name, c.sector, c.methodology_name, c.ratio.replace(/_/g, " "), bpPct(c.threshold_bp) + (c.partial ? " (partial)" : ""),
        bpPct(c.latest_bp), fmt(c.distance_points, 2), dir, fmt(c.quarters_of_drift), img], [5, 6, 7, 9]);
      tr.className = "link drift-row";
      tr.addEventListener("click", () => openSymbol(c.symbol));
      return tr;
    }), "No company of " + index + " is drifting toward a threshold.", 11);
    const rows = [];
    (medians.sectors || []).forEach((s) => s.quarters.forEach((qq) => rows.push(row([s.sector, qq.quarter, fmt(qq.companies), pctOf(qq.debt_to_assets),
      pctOf(qq.cash_to_assets), pctOf(qq.liquidity_to_assets), pctOf(qq.interest_to_revenue)], [2, 3, 4, 5, 6]))));
    fill("an-sectors", rows, "No filed quarters for this index.", 7);
  }
  async function openSymbol(symbol) {
    symbol = symbol.trim().toUpperCase();
    if (!symbol) return;
    const methodology = $("an-methodology").value;
    $("an-drift-box").hidden = true;
    $("an-symbol-page").hidden = false;
    $("sym-title").textContent = symbol;
    const pics = q({ ruleset: "spec", methodology });
    $("sym-badge").src = "/api/badge/" + encodeURIComponent(symbol) + ".svg" + (pics ? "?" + pics : "");
    $("sym-badge").alt = symbol + " compliance badge";
    $("sym-trajectory").src = "/api/insights/" + encodeURIComponent(symbol) + "/trajectory.svg" + (pics ? "?" + pics : "");
    $("sym-trajectory").alt = symbol + " trajectory chart";
    show("sym-message", "");
    $("sym-marks").hidden = true;
    $("sym-marks").replaceChildren();
    let r;
    try {
      r = await api("/api/result/" + encodeURIComponent(symbol) + "?" + q({ ruleset: "spec" }));
    } catch (e) {
      fill("sym-verdicts", [], "-", 4);
      fill("sym-ratios", [], "-", 6);
      show("sym-message", e.status === 404 ? symbol + " has no stored screening under ruleset spec." : "Could not load the result: " + e.message);
      return;
    }
    // The marks (data_quality.marks, from the server's one rule): the verdict, every as-of date and
    // every affected ratio carry them, and a banner says what they mean.
    const dq = r.data_quality || {};
    const marks = dq.marks || [];
    const labelOf = (kind) => { const m = marks.find((x) => x.kind === kind); return m ? m.label : kind.replace(/_/g, " "); };
    const suffix = marks.length ? " (" + marks.map((m) => m.label).join(", ") + ")" : "";
    $("sym-title").textContent = symbol + " - " + (r.name || "") + ": " + r.compliance_status + suffix;
    if (marks.length) {
      const box = $("sym-marks");
      box.appendChild(el("strong", "Not from filings alone: " + marks.map((m) => m.label).join(", ") + "."));
      const ul = el("ul");
      marks.forEach((m) => {
        const li = el("li", m.detail);
        li.dataset.mark = m.kind;
        ul.appendChild(li);
      });
      (dq.carried_forward || []).forEach((c) => ul.appendChild(el("li", c.field.replace(/_/g, " ") + " is from fiscal year " + c.fiscal_year +
        " (period ending " + c.period_end + (c.form ? ", " + c.form : "") + (c.source_ref ? " " + c.source_ref : "") + "): " + c.reason + ".", "carried")));
      box.appendChild(ul);
      box.hidden = false;
    }
    const ms = Object.keys(r.by_methodology || {}).sort().map((k) => r.by_methodology[k]);
    // each methodology's verdict and date carry the marks of its own ratios (by_methodology.*.marks)
    const mSuffix = (m) => (m.marks && m.marks.length ? " (" + m.marks.map(labelOf).join(", ") + ")" : "");
    fill("sym-verdicts", ms.map((m) => row([m.methodology, m.verdict + mSuffix(m), m.reason, m.as_of + mSuffix(m)])), "No methodology.", 4);
    const markCell = (kinds) => {
      const span = el("span");
      (kinds || []).forEach((k) => { const b = el("span", labelOf(k), "mark"); b.dataset.mark = k; span.appendChild(b); });
      if (!kinds || kinds.length === 0) span.appendChild(el("span", "filed", "muted"));
      return span;
    };
    const ratios = [];
    ms.forEach((m) => (m.ratios || []).forEach((x) => {
      const tr = row([m.methodology, x.label, x.value_pct === null ? "-" : Number(x.value_pct).toFixed(2) + "%", Number(x.threshold_pct).toFixed(2) + "%",
        x.pass === null ? "unknown" : (x.pass ? "yes" : "no"), markCell(x.marks)], [2, 3]);
      if (x.marks && x.marks.length) tr.className = "marked";
      ratios.push(tr);
    }));
    fill("sym-ratios", ratios, "No ratios.", 6);
  }
  $("an-refresh").addEventListener("click", loadDrift);
  $("an-open").addEventListener("click", () => openSymbol($("an-symbol").value));
  $("an-symbol").addEventListener("keydown", (e) => { if (e.key === "Enter") openSymbol($("an-symbol").value); });
})();
