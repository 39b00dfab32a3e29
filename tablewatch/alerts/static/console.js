// tablewatch surveillance console: alerts with evidence, tables online/offline, filters, acknowledge.
// Fed live over MQTT-over-WebSockets by the vendored MQTT.js (mqtt.min.js). Every message is hostile until
// its schema (schema.js) accepts it: a bad one is skipped and counted; text is only ever text (textContent)
// and a link or image only an http(s) or relative URL. The statistics (stats.json beside the page, written by
// `tablewatch stats --web`) are read every minute and checked against their schema the same way. Query parameters:
//   ws=ws://host:port/mqtt (default: this page's host, path /mqtt), site=<site> (default: every site),
//   user=<name> (the password is asked for; pass=<password> for a kiosk) for a broker with a password file;
//   acknowledgements go out as that user (the broker's ACL holds each user to his own ack topic), or as
//   by=<name> on a broker without user names.
"use strict";

const params = new URLSearchParams(location.search);
const wsUrl = params.get("ws") || `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/mqtt`;
const site = params.get("site") || "+";
const by = params.get("user") || params.get("by") || "surveillance";

const alerts = new Map();   // alert id -> newest revision seen
const tables = new Map();   // "site/table" -> {status, state}
const seen = new Set();     // msg_ids already applied: QoS 1 repeats are dropped
const SCHEMA_FILES = { alert: "schemas/alert-1.json", alerts: "schemas/alerts-1.json", state: "schemas/state-1.json",
                       stats: "schemas/stats-1.json" };
const STATS_FILE = "stats.json";
const STATS_EVERY_MS = 60000;
let stats = null;           // the newest statistics the schema accepted
let statsNote = "";         // why there are none, or why the newest were refused
const STATUSES = ["online", "offline"];
const schemas = {};         // topic leaf -> its schema
const registry = {};        // $id -> schema ($ref)
let skipped = 0;

const $ = (id) => document.getElementById(id);

function setLink(up, text) {
  const el = $("link");
  el.className = "link " + (up ? "up" : "down");
  el.textContent = text;
}

function tableEntry(key) {
  if (!tables.has(key)) tables.set(key, { status: "unknown", state: null });
  return tables.get(key);
}

function onMessage(topic, payload) {
  try {
    apply(topic, new TextDecoder().decode(payload));
  } catch (err) {
    skipped += 1;
    console.warn(`skipped a message on ${topic} (${skipped} so far): ${err.message}`);
  }
  render();
}

function apply(topic, text) {
  const [, siteId, tableId, ...leaf] = topic.split("/");
  const key = `${siteId}/${tableId}`;
  const kind = leaf.join("/");
  if (kind === "status") {
    if (!STATUSES.includes(text)) throw new Error(`status is not one of ${STATUSES.join(", ")}`);
    tableEntry(key).status = text;
  } else if (kind === "state") {
    tableEntry(key).state = checked(kind, text);
  } else if (kind === "alert") {
    applyAlert(checked(kind, text));
    tableEntry(key);
  } else if (kind === "alerts") {  // retained: the open alerts, for a page opened after they were raised
    for (const alert of checked(kind, text).alerts) applyAlert(alert);
    tableEntry(key);
  }
}

function checked(kind, text) {
  const body = JSON.parse(text);
  const error = schemaError(schemas[kind], body, registry);
  if (error) throw new Error(`not a tablewatch/${kind} payload: ${error}`);
  return body;
}

// An http(s) URL, or a relative one (resolved against the page); anything else (javascript:, data:) is null.
function safeUrl(text) {
  if (typeof text !== "string") return null;
  try {
    const url = new URL(text, location.href);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

function applyAlert(alert) {
  if (seen.has(alert.msg_id)) return;
  seen.add(alert.msg_id);
  const known = alerts.get(alert.id);
  if (!known || known.revision < alert.revision) alerts.set(alert.id, alert);
}

function option(select, value) {
  if ([...select.options].some((o) => o.value === value)) return;
  const o = document.createElement("option");
  o.value = value;
  o.textContent = value;
  select.appendChild(o);
}

function renderTables() {
  const box = $("tables");
  box.replaceChildren();
  for (const [key, t] of [...tables.entries()].sort()) {
    const div = document.createElement("div");
    div.className = `table ${t.status}`;
    div.dataset.testid = "table";
    div.dataset.table = key;
    div.dataset.status = t.status;
    const s = t.state || {};
    // the outbox's backlog is worth showing only when it builds up (a table cut off from the broker)
    const backlog = s.monitor && (!s.monitor.connected || s.monitor.backlog >= 10) ? s.monitor.backlog : 0;
    const named = Object.keys(s.players || {}).map(Number).sort((x, y) => x - y);
    for (const [cls, text] of [["name", `${key} · ${t.status}`], ["detail", s.hand_no != null ?
      `hand ${s.hand_no} · ${s.street || ""}${backlog ? " · backlog " + backlog : ""}` : ""],
      ["players", named.length ? `seats ${seatNames(named, s.players)}` : ""]]) {
      const part = document.createElement("div");
      part.className = cls;
      part.textContent = text;
      div.appendChild(part);
    }
    box.appendChild(div);
  }
}

// "3 (Bo Chan), 5": seat numbers, each with its player's name where the table sent one (older payloads: none).
function seatNames(seats, players) {
  if (!seats.length) return "-";
  return seats.map((seat) => (players && players[seat] ? `${seat} (${players[seat]})` : `${seat}`)).join(", ");
}

function renderAlerts() {
  const tableFilter = $("filter-table").value;
  const ruleFilter = $("filter-rule").value;
  const openOnly = $("filter-open").checked;
  const list = [...alerts.values()].sort((a, b) => (a.time < b.time ? 1 : -1));
  const main = $("alerts");
  main.replaceChildren();
  let shown = 0;
  for (const a of list) {
    const key = `${a.site}/${a.table}`;
    option($("filter-table"), key);
    option($("filter-rule"), a.rule_id);
    if ((tableFilter && key !== tableFilter) || (ruleFilter && a.rule_id !== ruleFilter)) continue;
    if (openOnly && a.status !== "open") continue;
    main.appendChild(alertCard(a, key));
    shown += 1;
  }
  $("count").textContent = `${shown} of ${alerts.size} alert(s)`;
  $("skipped").textContent = skipped ? `${skipped} malformed message(s) skipped` : "";
}

function alertCard(a, key) {
  const card = document.createElement("article");
  card.className = `alert ${a.severity} ${a.status}`;
  card.dataset.testid = "alert";
  card.dataset.id = a.id;
  card.dataset.table = key;
  card.dataset.rule = a.rule_id;
  const ev = a.evidence;
  const still = safeUrl(ev.still_url);
  const clip = safeUrl(ev.clip_url);
  if (still) {
    const img = document.createElement("img");
    img.src = still;
    img.alt = `still of ${a.rule_id}`;
    card.appendChild(img);
  }
  const body = document.createElement("div");
  body.className = "body";
  const line = (cls, text) => {
    const d = document.createElement("div");
    d.className = cls;
    d.textContent = text;
    body.appendChild(d);
  };
  line("rule", `${a.rule_id} — ${a.rule_title}`);
  line("meta", `${key} · hand ${a.hand_no ?? "-"} · ${a.street ?? ""} · seats ${seatNames(a.seats, a.players)} · ` +
               `${a.time.replace("T", " ").slice(0, 19)} · ${a.severity} · ${Math.round(a.confidence * 100)}%`);
  line("observed", a.observed);
  line("ruling", `Ruling: ${a.ruling}`);
  line("meta", a.acknowledged_by ? `acknowledged by ${a.acknowledged_by}` : a.status);
  if (clip && ev.clip_ready) {
    const link = document.createElement("a");
    link.href = clip;
    link.textContent = "clip";
    link.dataset.testid = "clip";
    body.appendChild(link);
  } else if (clip) {
    line("meta", "clip being written…");
  }
  if (a.status === "open") {
    const button = document.createElement("button");
    button.textContent = "Acknowledge";
    button.onclick = () => acknowledge(a);
    body.appendChild(button);
  }
  card.appendChild(body);
  return card;
}

let client = null;

function acknowledge(a) {
  const ack = { schema: "tablewatch/ack/1", msg_id: `ak-web-${a.id}-${by}`, site: a.site, table: a.table,
                alert_id: a.id, by, time: new Date().toISOString(), note: "" };
  client.publish(`tablewatch/${a.site}/${a.table}/ack/${by}`, JSON.stringify(ack), { qos: 1 });
}

function render() {
  renderTables();
  renderAlerts();
  renderStats();
}

async function loadStats() {
  try {
    const response = await fetch(STATS_FILE, { cache: "no-store" });
    if (response.status === 404) {
      statsNote = "No statistics yet: `tablewatch stats STORE --web <this page's folder>` writes them.";
    } else if (!response.ok) {
      statsNote = `${STATS_FILE}: HTTP ${response.status}`;
    } else {
      stats = checked("stats", await response.text());
      statsNote = "";
    }
  } catch (err) {
    statsNote = `statistics refused: ${err.message}`;
  }
  renderStats();
}

const STATS_COLUMNS = [["name", ""], ["hands", "hands"], ["hands_per_hour", "hands/hour"],
  ["seconds_per_hand", "s/hand"], ["deal_s", "deal s"], ["betting_s", "betting s"], ["finish_s", "showdown+push s"],
  ["breaks", "breaks"], ["pot_mean", "mean pot"], ["dealer_error_hands_per_100", "hands with a dealer error /100"],
  ["player_violation_hands_per_100", "hands with a player violation /100"]];
const BARS = { hands_per_hour: "", dealer_error_hands_per_100: "errors" };  // columns drawn as bars too
const BY_RULE = { dealer_error_hands_per_100: "dealer_errors_by_rule",
                  player_violation_hands_per_100: "player_violations_by_rule" };

function renderStats() {
  const by = $("stats-by").value;
  const body = $("stats-body");
  body.replaceChildren();
  $("stats-made").textContent = stats ? `· ${stats.made_at}` : "";
  if (statsNote || !stats) {
    const note = document.createElement("p");
    note.className = "note";
    note.textContent = statsNote || "loading…";
    body.appendChild(note);
    if (!stats) return;
  }
  const rows = stats[by];
  const top = Object.fromEntries(Object.keys(BARS).map((k) => [k, Math.max(1e-9, ...rows.map((r) => r[k] || 0))]));
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  for (const [, label] of STATS_COLUMNS) head.appendChild(document.createElement("th")).textContent = label || by;
  const tbody = table.createTBody();
  for (const row of rows) {
    const tr = tbody.insertRow();
    tr.dataset.testid = "stats-row";
    for (const [key] of STATS_COLUMNS) {
      const cell = tr.insertCell();
      if (key in BARS && row[key] != null) {
        const bar = cell.appendChild(document.createElement("span"));
        bar.className = `bar ${BARS[key]}`;
        bar.style.width = `${Math.round(60 * row[key] / top[key])}px`;
      }
      cell.appendChild(document.createTextNode(row[key] == null ? "–" : String(row[key])));
      if (key in BY_RULE) {  // the hands that broke each rule, on hovering
        cell.title = Object.entries(row[BY_RULE[key]]).map(([rule, n]) => `${rule}: ${n}`).join(", ");
      }
    }
  }
  body.appendChild(table);
}

async function loadSchemas() {
  for (const [kind, file] of Object.entries(SCHEMA_FILES)) {
    const response = await fetch(file);
    if (!response.ok) throw new Error(`${file}: HTTP ${response.status}`);
    schemas[kind] = await response.json();
    registry[schemas[kind].$id] = schemas[kind];
  }
}

function start() {
  for (const id of ["filter-table", "filter-rule", "filter-open", "stats-by"]) $(id).onchange = render;
  loadStats();
  setInterval(loadStats, STATS_EVERY_MS);
  const options = { protocolVersion: 5, clientId: `tw-web-${Math.random().toString(16).slice(2, 10)}`,
                    reconnectPeriod: 2000, connectTimeout: 5000 };
  if (params.get("user")) {  // a password in the URL is for kiosks; otherwise it is asked for
    options.username = params.get("user");
    options.password = params.get("pass") ?? (window.prompt(`Password for ${options.username}`) || "");
  }
  client = mqtt.connect(wsUrl, options);
  client.on("connect", () => {
    setLink(true, `live · ${wsUrl}`);
    for (const leaf of ["alert", "alerts", "status", "state"]) client.subscribe(`tablewatch/${site}/+/${leaf}`, { qos: 1 });
  });
  client.on("reconnect", () => setLink(false, "reconnecting…"));
  client.on("close", () => setLink(false, "broker unreachable"));
  client.on("error", (err) => setLink(false, `error: ${err.message}`));
  client.on("message", onMessage);
}

loadSchemas().then(start, (err) => setLink(false, `can't load the payload schemas: ${err.message}`));
