// tablewatch surveillance console: the incidents to review, with their evidence, the tables live, and the floor's
// commands. Fed live over MQTT-over-WebSockets by the vendored MQTT.js (mqtt.min.js). Every message is hostile
// until its schema (schema.js) accepts it: a bad one is skipped and counted; text is only ever text (textContent)
// and a link, image or video only an http(s) or relative URL. The statistics (stats.json beside the page, written
// by `tablewatch stats --web`) are read every minute and checked against their schema the same way.
//
// What the page shows and sends (docs/mqtt.md):
//   incidents (`incident`, retained `incidents`): newest first, filtered; a revision with notify: true rings once
//     (a flash and a count in the title); reviews go out on …/review/<user> and the page shows the table's
//     answer, the incident's next revision, never a change of its own;
//   alerts (`alert`, retained `alerts`): inside their incident's details; those of a table that sends no incidents
//     on their own; muted ones (raised while muted or off) only under the "muted alerts" filter, never rung;
//   tables (`status`, `state`, retained `alerting/state`): the live hand, and the alerting switches, set over
//     …/alerting/set/<user>; hands (`hand`): a finished hand's PHH, on clicking its number.
// Query parameters: ws=ws://host:port/mqtt (default: this page's host, path /mqtt), site=<site> (default: every
//   site), user=<name> (fills in the sign-in form), pass=<password> (a kiosk: signs in without the form),
//   by=<name> (who reviews, on a broker without user names), mqtt=3.1.1 (a central NATS node: it speaks MQTT 3.1.1
//   only; default MQTT 5). A broker that wants credentials gets the sign-in
//   form; reviews and switches go out as the signed-in user (the broker's ACL holds each to his own topics).
"use strict";

const params = new URLSearchParams(location.search);
const wsUrl = params.get("ws") || `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/mqtt`;
const site = params.get("site") || "+";
// MQTT 5, or 3.1.1 (protocol level 4) for the central tier's NATS nodes, which speak nothing else
const protocolVersion = params.get("mqtt") === "3.1.1" ? 4 : 5;
const TITLE = document.title;
const LEAVES = ["alert", "alerts", "incident", "incidents", "alerting/state", "status", "state", "hand"];
const SCHEMA_FILES = { alert: "schemas/alert-1.json", alerts: "schemas/alerts-1.json", state: "schemas/state-1.json",
                       stats: "schemas/stats-1.json", incident: "schemas/incident-1.json",
                       incidents: "schemas/incidents-1.json", review: "schemas/review-1.json",
                       alerting: "schemas/alerting-1.json", "alerting-set": "schemas/alerting-set-1.json",
                       hand: "schemas/hand-1.json", ack: "schemas/ack-1.json" };
const STATS_FILE = "stats.json";
const GROUPS_FILE = "groups.json";  // {"Pit 1": ["casino/T01", "casino/T02"], …}: table groups, beside the page
const MAX_GROUPS = 200;
const TABLE_KEY = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const STATS_EVERY_MS = 60000;
const STATUSES = ["online", "offline"];
const REFUSED = [4, 5, 134, 135];  // CONNACK: bad user name or password / not authorized (MQTT 3.1.1, 5)
const ACTIONS = [["acknowledge", "Acknowledge"], ["resolve", "Resolve"], ["dismiss", "Dismiss"],
                 ["reopen", "Reopen"], ["keep", "Keep evidence"], ["release", "Release evidence"],
                 ["export", "Export"]];
const MUTE_FOR = [["900", "15 min"], ["3600", "1 h"], ["14400", "4 h"], ["28800", "8 h"], ["0", "unmute"]];
const SEVERITY_RANK = { system: 0, advisory: 1, violation: 2 };
const FLASH_MS = 8000;
const ANSWER_WAIT_MS = 10000;  // a command without an answer this long is said to be unanswered
const MAX_INCIDENTS = 500;
const MAX_ALERTS = 2000;
const MAX_HANDS = 300;
const MAX_SEEN = 20000;
const MAX_STEPS = 400;        // a hand's actions drawn (a summary is free-form: a hostile one may list millions)
const SEEK_LEAD_S = 1.0;      // a step plays the recording from this long before it
const RECORDING_TRIES = 5;    // loads of a hand's recording tried while it is still being written
const RECORDING_RETRY_MS = 2000;

const alerts = new Map();     // alert id -> newest revision seen
const incidents = new Map();  // incident id -> newest revision seen
const tables = new Map();     // "site/table" -> {status, state, alerting}
const hands = new Map();      // "site/table/hand_no" -> the finished hand
const seen = new Set();       // msg_ids already applied: QoS 1 repeats are dropped (the oldest forgotten past MAX_SEEN)
const REVIEW_LOG = 20;       // reviews an incident keeps (tablewatch.alerts.incidents.REVIEW_LOG)
const pending = new Map();    // incident id -> {action, by, time, at, error}: a review sent, its answer awaited
const refusals = new Map();   // incident id -> why the page did not send what was asked
const switching = new Map();  // "site/table" -> {text, msgId, at, error}: a switch sent, the table's state awaited
const flashUntil = new Map(); // incident id -> when its flash ends
const cards = new Map();      // incident id -> its card's elements (kept across renders: a note, a playing clip)
const tableViews = new Map(); // "site/table" -> its card's elements
const schemas = {};           // kind -> its schema
const registry = {};          // $id -> schema ($ref)
let skipped = 0;
let rings = 0;                // incident revisions that rang (notify: true, live)
let unseen = 0;               // rings since the last click or key on the page: the count in the title
let stats = null;             // the newest statistics the schema accepted
let groups = new Map();       // table group name -> its tables ("site/table"), from GROUPS_FILE
let groupsNote = "";          // why GROUPS_FILE was refused
let statsNote = "";           // why there are none, or why the newest were refused
let client = null;
let signedIn = null;          // the broker user signed in as, or null
let by = params.get("by") || "surveillance";  // who reviews and switches: the signed-in user when there is one
let shownHand = null;         // "site/table/hand_no" in the hand view
let handSig = "";             // what the hand view shows now: rebuilt when it changes
let recordingUrl = null;      // the object URL of the hand's recording shown, revoked when replaced
let audio = null;             // an AudioContext, made at the first click (browsers allow sound after a gesture)
let renderQueued = false;
let looseSig = "";
let mutedSig = "";

const $ = (id) => document.getElementById(id);

// An element with attributes, a class, a test id and text (always as text), and children.
function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null) continue;
    if (key === "text") node.textContent = value;
    else if (key === "class") node.className = value;
    else if (key === "testid") node.dataset.testid = value;
    else node.setAttribute(key, value);
  }
  node.append(...children);
  return node;
}

function setLink(up, text) {
  const box = $("link");
  box.className = "link " + (up ? "up" : "down");
  box.textContent = text;
}

function tableEntry(key) {
  if (!tables.has(key)) tables.set(key, { status: "unknown", state: null, alerting: null });
  return tables.get(key);
}

function firstTime(msgId) {
  if (seen.has(msgId)) return false;
  seen.add(msgId);
  if (seen.size > MAX_SEEN) seen.delete(seen.values().next().value);
  return true;
}

// --- messages --------------------------------------------------------------------------------------------

function onMessage(topic, payload) {
  try {
    apply(topic, new TextDecoder().decode(payload));
  } catch (err) {
    skipped += 1;
    console.warn(`skipped a message on ${topic} (${skipped} so far): ${err.message}`);
  }
  scheduleRender();
}

function apply(topic, text) {
  const [, siteId, tableId, ...leaf] = topic.split("/");
  const key = `${siteId}/${tableId}`;
  const kind = leaf.join("/");
  const here = (body) => {  // a payload naming another table than its topic's: a table speaking for another
    if (body.site !== siteId || body.table !== tableId) throw new Error(`it names ${body.site}/${body.table}`);
    return body;
  };
  if (kind === "status") {
    if (!STATUSES.includes(text)) throw new Error(`status is not one of ${STATUSES.join(", ")}`);
    tableEntry(key).status = text;
  } else if (kind === "state") {
    tableEntry(key).state = here(checked(kind, text));
  } else if (kind === "alerting/state") {
    const body = here(checked("alerting", text));
    tableEntry(key).alerting = body;
    const asked = switching.get(key);
    if (asked && asked.msgId !== body.msg_id) switching.delete(key);  // the table's answer
  } else if (kind === "alert") {
    applyAlert(here(checked(kind, text)));
    tableEntry(key);
  } else if (kind === "alerts") {  // retained: the open alerts, for a page opened after they were raised
    for (const alert of here(checked(kind, text)).alerts) applyAlert(here(alert));
    tableEntry(key);
  } else if (kind === "incident") {
    applyIncident(here(checked(kind, text)), true);
    tableEntry(key);
  } else if (kind === "incidents") {  // retained: the incidents still to review; they don't ring
    for (const incident of here(checked(kind, text)).incidents) applyIncident(here(incident), false);
    tableEntry(key);
  } else if (kind === "hand") {
    const hand = here(checked(kind, text));
    const handKey = `${key}/${hand.hand_no}`;
    const known = hands.get(handKey);
    if (!known || known.time <= hand.time) {
      hands.delete(handKey);
      hands.set(handKey, hand);
      if (hands.size > MAX_HANDS) hands.delete(hands.keys().next().value);
    }
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
  if (!firstTime(alert.msg_id)) return;
  const known = alerts.get(alert.id);
  if (!known || known.revision < alert.revision) alerts.set(alert.id, alert);
  while (alerts.size > MAX_ALERTS) alerts.delete(alerts.keys().next().value);
}

function applyIncident(incident, live) {
  if (!firstTime(incident.msg_id)) return;
  const known = incidents.get(incident.id);
  if (known && known.revision >= incident.revision) return;
  incidents.set(incident.id, incident);
  const asked = pending.get(incident.id);
  if (asked && answers(incident, asked)) {
    pending.delete(incident.id);
    const view = cards.get(incident.id);
    if (view) view.note.value = "";
  }
  if (live && incident.notify) ring(incident);
  forgetOldIncidents();
}

// Whether this revision is the table's answer to our review: it lists it (a clip's revision, another's review: not).
// The table logs a review on its own clock, so the answer is a review of ours among those logged since we sent it.
function answers(incident, asked) {
  return incident.reviews.slice(asked.seen).some((r) => r.action === asked.action && r.by === asked.by &&
                                                        r.note === asked.note);
}

function forgetOldIncidents() {
  if (incidents.size <= MAX_INCIDENTS) return;
  // the open ones first, newest first: the ended and the oldest go
  const oldest = [...incidents.values()].sort((a, b) => (ended(a) - ended(b)) || newer(a, b));
  for (const incident of oldest.slice(MAX_INCIDENTS)) {
    incidents.delete(incident.id);
    cards.delete(incident.id);
  }
}

const ended = (incident) => (incident.state === "resolved" || incident.state === "dismissed" ? 1 : 0);
const newer = (a, b) => (Date.parse(b.time) - Date.parse(a.time)) || (a.id < b.id ? -1 : 1);  // a before b: a newer
const family = (rule) => rule.split("(")[0];

// --- ringing ---------------------------------------------------------------------------------------------

function ring(incident) {
  rings += 1;
  unseen += 1;
  document.body.dataset.rings = String(rings);
  flashUntil.set(incident.id, Date.now() + FLASH_MS);
  setTimeout(scheduleRender, FLASH_MS + 50);
  updateTitle();
  beep();
}

function updateTitle() {
  document.title = unseen ? `(${unseen}) ${TITLE}` : TITLE;
}

function beep() {
  if (!audio || audio.state !== "running") return;
  try {
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 880;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.4);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.4);
  } catch (err) {
    console.warn(`no sound: ${err.message}`);
  }
}

function seenAll() {
  if (!audio && window.AudioContext) {
    try {
      audio = new AudioContext();
    } catch {
      audio = null;
    }
  }
  if (unseen) {
    unseen = 0;
    updateTitle();
  }
}

// --- rendering -------------------------------------------------------------------------------------------

function scheduleRender() {
  if (renderQueued) return;
  renderQueued = true;
  setTimeout(() => {
    renderQueued = false;
    render();
  }, 0);
}

function render() {
  renderTables();
  renderFilters();
  renderIncidents();
  renderAlerts();
  renderHand();
  renderStats();
}

function option(select, value, label = value) {
  if ([...select.options].some((o) => o.value === value)) return;
  const o = el("option", { value, text: label });
  const after = [...select.options].slice(1).find((x) => x.value > value);  // sorted, the first ("all") first
  select.insertBefore(o, after || null);
}

// "3 (Bo Chan), 5": seat numbers, each with its player's name where the table sent one (older payloads: none).
function seatNames(seats, players) {
  if (!seats.length) return "-";
  return seats.map((seat) => (players && Object.hasOwn(players, String(seat)) ? `${seat} (${players[seat]})`
                                                                               : `${seat}`)).join(", ");
}

function clock(iso) {
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return iso;
  const time = when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
  return when.toDateString() === new Date().toDateString() ? time : `${when.toISOString().slice(0, 10)} ${time}`;
}

const SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };

function cardNode(card) {
  if (card === null) return el("span", { class: "card down", text: "▯" });
  const suit = SUITS[card.slice(-1)];
  const red = card.endsWith("h") || card.endsWith("d");
  return el("span", { class: `card${red ? " red" : ""}`, text: suit ? card.slice(0, -1) + suit : card });
}

// --- tables ----------------------------------------------------------------------------------------------

function renderTables() {
  const box = $("tables");
  const group = $("filter-group").value;
  const keys = [...tables.keys()].sort().filter((key) => inGroup(key, group));
  for (const key of keys) {
    if (!tableViews.has(key)) tableViews.set(key, makeTableView(key));
    updateTableView(tableViews.get(key), key, tables.get(key));
  }
  const wanted = keys.map((key) => tableViews.get(key).root);
  if (wanted.length !== box.children.length || wanted.some((node, i) => box.children[i] !== node)) {
    box.replaceChildren(...wanted);
  }
}

function makeTableView(key) {
  const parts = {};
  for (const [name, cls] of [["name", "name"], ["detail", "detail"], ["board", "board"], ["seats", "seats"],
                             ["players", "players"], ["alerting", "alerting"], ["suppressed", "suppressed"],
                             ["asked", "pending"], ["timeline", "last-hand"]]) {
    parts[name] = el("div", { class: cls, testid: name === "name" || name === "timeline" ? undefined : name });
  }
  const rule = el("select", { testid: "mute-rule", "aria-label": "rule" },
                  [el("option", { value: "", text: "whole table" })]);
  const muteFor = el("select", { testid: "mute-for", "aria-label": "for" },
                     MUTE_FOR.map(([value, label]) => el("option", { value, text: label })));
  const mute = el("button", { type: "button", testid: "mute", text: "Mute" });
  const off = el("button", { type: "button", testid: "switch-off", text: "Off" });
  const on = el("button", { type: "button", testid: "switch-on", text: "On" });
  const what = () => rule.value || "the whole table";
  mute.onclick = () => sendSwitch(key, rule.value || null, { mute_for_s: Number(muteFor.value) },
                                  `${what()}: ${muteFor.value === "0" ? "unmute" :
                                    "mute for " + muteFor.selectedOptions[0].textContent}`);
  off.onclick = () => sendSwitch(key, rule.value || null, { enabled: false }, `${what()}: off`);
  on.onclick = () => sendSwitch(key, rule.value || null, { enabled: true }, `${what()}: on`);
  const controls = el("div", { class: "controls" }, [rule, muteFor, mute, off, on]);
  const root = el("div", { class: "table", testid: "table" }, [...Object.values(parts), controls]);
  root.dataset.table = key;
  return { root, parts, rule };
}

function updateTableView(view, key, t) {
  const { root, parts } = view;
  root.className = `table ${t.status}`;
  root.dataset.status = t.status;
  const s = t.state || {};
  // the outbox's backlog is worth showing only when it builds up (a table cut off from the broker)
  const backlog = s.monitor && (!s.monitor.connected || s.monitor.backlog >= 10) ? s.monitor.backlog : 0;
  parts.name.textContent = `${key} · ${t.status}`;
  parts.detail.textContent = s.hand_no != null ? [`hand ${s.hand_no}`, s.street || "", s.button != null ?
    `button ${s.button}` : "", s.pot != null ? `pot ${s.pot.toLocaleString("en-US")}` : "",
  backlog ? `backlog ${backlog}` : ""].filter(Boolean).join(" · ") : "no hand yet";
  parts.detail.title = (s.monitor && s.monitor.problem) || "";
  parts.board.replaceChildren(...(s.board && s.board.length ? [el("span", { class: "label", text: "board " }),
    ...s.board.map(cardNode)] : []));
  parts.seats.replaceChildren(...(s.seats || []).map((seat) => {
    const active = (s.active || []).includes(seat);
    return el("span", { class: `seat${active ? " active" : ""}${seat === s.button ? " button" : ""}`,
                        text: seat === s.button ? `${seat}D` : String(seat),
                        title: active ? "in the hand" : "folded" });
  }));
  const named = Object.keys(s.players || {}).map(Number).sort((x, y) => x - y);
  parts.players.textContent = named.length ? `seats ${seatNames(named, s.players)}` : "";
  const alerting = alertingText(t.alerting);
  parts.alerting.textContent = alerting.text;
  parts.alerting.className = `alerting${alerting.quiet ? " quiet" : ""}`;
  parts.suppressed.textContent = alerting.suppressed;
  const asked = switching.get(key);
  parts.asked.textContent = !asked ? "" : asked.error ? asked.error : Date.now() - asked.at > ANSWER_WAIT_MS ?
    `${asked.text}: no answer from the table (refused? see its log; or it is offline)` :
    `${asked.text}: sent as ${by}, waiting for the table…`;
  parts.asked.className = asked && asked.error ? "pending refusal" : "pending";
  for (const incident of incidents.values()) {
    if (`${incident.site}/${incident.table}` === key) option(view.rule, family(incident.rule_id));
  }
  for (const alert of alerts.values()) {
    if (`${alert.site}/${alert.table}` === key) option(view.rule, family(alert.rule_id));
  }
  for (const rule of Object.keys((t.alerting && t.alerting.rules) || {})) option(view.rule, rule);
  updateTableTimeline(view, key);
}

// The table's last finished hand on its time line; a click opens the hand there.
function updateTableTimeline(view, key) {
  let last = null;
  for (const [handKey, hand] of hands) {
    if (handKey.startsWith(`${key}/`) && (!last || hand.time > last[1].time)) last = [handKey, hand];
  }
  const moments = last ? handMoments(last[1]) : null;
  const sig = last ? drawnAs(last[0], last[1], moments) : "";
  if (sig === view.timelineSig) return;
  view.timelineSig = sig;
  if (!last) {
    view.parts.timeline.replaceChildren();
    return;
  }
  const [handKey, hand] = last;
  const open = el("button", { type: "button", class: "linkish", text: `hand ${hand.hand_no}`,
                              title: "show the hand, its recording and its steps" });
  open.onclick = () => showHand(handKey);
  view.parts.timeline.replaceChildren(el("div", { class: "meta" }, [el("span", { text: "last " }), open]),
                                      timeline(hand, moments, (ts) => showHand(handKey, ts), true));
}

// From alerting/state: "alerting on · TDA-29 muted until 08:45 · set by floor-pit-1", whether anything is muted
// or off now, and "suppressed while muted or off: TDA-29 ×1".
function alertingText(a) {
  if (!a) return { text: "alerting: no state from the table yet", quiet: false, suppressed: "" };
  const now = Date.now();
  const parts = [a.enabled ? "alerting on" : "alerting OFF"];
  let quiet = !a.enabled;
  if (a.muted_until && Date.parse(a.muted_until) > now) {
    parts.push(`table muted until ${clock(a.muted_until)}`);
    quiet = true;
  }
  for (const [rule, s] of Object.entries(a.rules)) {
    if (!s.enabled) parts.push(`${rule} off`);
    if (s.muted_until && Date.parse(s.muted_until) > now) parts.push(`${rule} muted until ${clock(s.muted_until)}`);
    quiet = quiet || !s.enabled || Boolean(s.muted_until && Date.parse(s.muted_until) > now);
  }
  if (a.changed_by) parts.push(`set by ${a.changed_by}`);
  const counts = Object.entries(a.suppressed).filter(([, n]) => n > 0).map(([rule, n]) => `${rule} ×${n}`);
  const suppressed = counts.length ? `suppressed while muted or off: ${counts.join(", ")}` : "";
  return { text: parts.join(" · "), quiet, suppressed };
}

// --- filters ---------------------------------------------------------------------------------------------

function filters() {
  const seat = parseInt($("filter-seat").value, 10);
  return { since: Number($("filter-since").value) || 0, group: $("filter-group").value, table: $("filter-table").value,
           rule: $("filter-rule").value,
           severity: $("filter-severity").value, seat: Number.isNaN(seat) ? null : seat, state: $("filter-state").value,
           muted: $("filter-muted").checked };
}

function renderFilters() {
  for (const key of tables.keys()) {
    option($("filter-table"), key);
    option($("filter-group"), `site:${key.split("/")[0]}`, `site ${key.split("/")[0]}`);
  }
  for (const name of groups.keys()) option($("filter-group"), `group:${name}`, name);
  $("groups-note").textContent = groupsNote;
  const rules = new Set();
  for (const incident of incidents.values()) incident.rule_ids.concat(incident.rule_id).forEach((r) => rules.add(r));
  for (const alert of alerts.values()) rules.add(alert.rule_id);
  for (const rule of rules) {
    option($("filter-rule"), family(rule));
    option($("filter-rule"), rule);
  }
}

// Whether the table "site/table" is in the group chosen: "site:NAME" (every table of a site) or "group:NAME".
function inGroup(key, group) {
  if (!group) return true;
  const [kind, name] = [group.slice(0, group.indexOf(":")), group.slice(group.indexOf(":") + 1)];
  if (kind === "site") return key.split("/")[0] === name;
  return groups.has(name) && groups.get(name).has(key);
}

function matches(item, f, when, ruleIds) {
  if (f.since && when < Date.now() - f.since * 1000) return false;
  if (!inGroup(`${item.site}/${item.table}`, f.group)) return false;
  if (f.table && `${item.site}/${item.table}` !== f.table) return false;
  if (f.rule && !ruleIds.some((r) => r === f.rule || family(r) === f.rule)) return false;
  if (f.severity && item.severity !== f.severity) return false;
  if (f.seat !== null && !item.seats.includes(f.seat)) return false;
  return true;
}

// When an incident last changed: its newest alert (its first alert's time, moved on by the session clock).
const lastMs = (incident) => Date.parse(incident.time) + (incident.last_ts - incident.ts) * 1000;

function incidentShown(incident, f) {
  return matches(incident, f, lastMs(incident), incident.rule_ids.concat(incident.rule_id)) &&
    (!f.state || incident.state === f.state);
}

// --- incidents -------------------------------------------------------------------------------------------

function renderIncidents() {
  const f = filters();
  const list = [...incidents.values()].filter((incident) => incidentShown(incident, f)).sort(newer);
  const box = $("incidents");
  const wanted = [];
  for (const incident of list) {
    if (!cards.has(incident.id)) cards.set(incident.id, makeCard(incident.id));
    const view = cards.get(incident.id);
    updateCard(view, incident);
    wanted.push(view.root);
  }
  if (!list.length) {
    wanted.push(el("p", { class: "note", testid: "no-incidents", text: incidents.size ?
      "No incident matches the filters." : "No incidents yet." }));
  }
  // moved only when the order changed: a card moved in the page keeps its note and its playing clip anyway
  if (wanted.length !== box.children.length || wanted.some((node, i) => box.children[i] !== node)) {
    box.replaceChildren(...wanted);
  }
  $("count").textContent = `${list.length} of ${incidents.size} incident(s)`;
  $("skipped").textContent = skipped ? `${skipped} malformed message(s) skipped` : "";
}

function makeCard(id) {
  const still = el("div", { class: "still" });
  const clip = el("div", { class: "clip" });
  const info = el("div", { class: "info" });
  const detailBody = el("div", { class: "detail-body" });
  const details = el("details", { testid: "details" }, [el("summary", { text: "alerts and reviews" }), detailBody]);
  const note = el("input", { class: "note", testid: "note", maxlength: "500", spellcheck: "false",
                             placeholder: "note (a dismissal needs the reason)", "aria-label": "note" });
  const buttons = {};
  const actions = el("div", { class: "actions" }, [note]);
  for (const [action, label] of ACTIONS) {
    buttons[action] = el("button", { type: "button", testid: `do-${action}`, text: label });
    buttons[action].onclick = () => sendReview(id, action);
    actions.append(buttons[action]);
  }
  note.oninput = () => {
    if (refusals.delete(id)) scheduleRender();
  };
  const asked = el("div", { class: "pending", testid: "pending" });
  const refusal = el("div", { class: "refusal", testid: "refusal", role: "alert" });
  const root = el("article", { class: "incident", testid: "incident" }, [
    el("div", { class: "media" }, [still, clip]),
    el("div", { class: "body" }, [info, details, actions, asked, refusal])]);
  root.dataset.id = id;
  return { root, still, clip, info, detailBody, note, buttons, asked, refusal, sig: "", stillUrl: undefined,
           clipUrl: undefined };
}

function updateCard(view, incident) {
  const flashing = (flashUntil.get(incident.id) || 0) > Date.now();
  const asked = pending.get(incident.id);
  const overdue = asked && !asked.error && Date.now() - asked.at > ANSWER_WAIT_MS;
  const alertSig = incident.alerts.map((id) => (alerts.has(id) ? alerts.get(id).msg_id : "")).join();
  const handSig = incident.hands.map((n) => hands.has(`${incident.site}/${incident.table}/${n}`)).join();
  const sig = [incident.msg_id, flashing, asked && JSON.stringify(asked), overdue, refusals.get(incident.id), alertSig,
               handSig, by].join("|");
  if (sig === view.sig) return;
  view.sig = sig;
  const { root } = view;
  root.className = `incident ${incident.severity} ${incident.state}${flashing ? " flash" : ""}`;
  Object.assign(root.dataset, { table: `${incident.site}/${incident.table}`, rule: incident.rule_id,
                                state: incident.state, severity: incident.severity, revision: String(incident.revision),
                                seats: incident.seats.join(",") });
  updateMedia(view, incident);
  view.info.replaceChildren(...incidentLines(incident));
  view.detailBody.replaceChildren(...incidentDetails(incident));
  const open = incident.state === "open";
  const live = open || incident.state === "acknowledged";
  const show = { acknowledge: open, resolve: live, dismiss: live, reopen: !live, keep: !incident.keep,
                 release: incident.keep, export: true };
  for (const [action, button] of Object.entries(view.buttons)) {
    button.hidden = !show[action];
    button.disabled = Boolean(asked && !asked.error && !overdue);
  }
  view.asked.textContent = !asked ? "" : asked.error ? asked.error : overdue ?
    `${asked.action}: no answer from the table in ${ANSWER_WAIT_MS / 1000} s (it may have refused it: see its ` +
    "log; or it is offline)" : `${asked.action} sent as ${asked.by}, waiting for the table's answer…`;
  view.asked.classList.toggle("refusal", Boolean(asked && (asked.error || overdue)));
  view.refusal.textContent = refusals.get(incident.id) || "";
}

// What to say instead of a still or a clip: none sent, or one at a URL the page won't load (javascript:, data:).
const missing = (what, url) => el("div", { class: "meta",
                                           text: url ? `${what} refused: not an http(s) URL` : `no ${what}` });

function updateMedia(view, incident) {
  const ev = incident.evidence;
  const still = safeUrl(ev.still_url);
  if (still !== view.stillUrl) {
    view.stillUrl = still;
    view.still.replaceChildren(still ? el("img", { src: still, testid: "still", alt: `still of ${incident.rule_id}` })
                                     : missing("still", ev.still_url));
  }
  const clip = safeUrl(ev.clip_url);
  const shown = clip && ev.clip_ready ? clip : `${clip ? "written" : "none"}:${ev.clip_url}`;
  if (shown !== view.clipUrl) {  // a new element only for a new clip: a revision doesn't stop the one playing
    view.clipUrl = shown;
    if (clip && ev.clip_ready) {
      const video = el("video", { controls: "", preload: "metadata", testid: "clip", src: clip });
      if (still) video.setAttribute("poster", still);
      view.clip.replaceChildren(video);
    } else {
      view.clip.replaceChildren(clip ? el("div", { class: "meta", text: "clip being written…" })
                                     : missing("clip", ev.clip_url));
    }
  }
}

function incidentLines(incident) {
  const key = `${incident.site}/${incident.table}`;
  const line = (cls, text, testid) => el("div", { class: cls, text, testid });
  const handButtons = incident.hands.slice(0, 6).map((n) => {
    const button = el("button", { type: "button", class: "linkish", testid: "hand-link", text: `hand ${n}`,
                                  title: "show the hand's history" });
    button.onclick = () => showHand(`${key}/${n}`);
    return button;
  });
  const [first, last] = [clock(incident.time), clock(new Date(lastMs(incident)).toISOString())];
  const when = last !== first ? `${first} (last ${last})` : first;
  const head = el("div", { class: "head" }, [
    el("span", { class: `badge ${incident.severity}`, text: incident.severity, testid: "severity" }),
    el("span", { class: `badge state ${incident.state}`, text: incident.state, testid: "state" }),
    el("span", { class: "where", text: `${key} · ` }), ...(handButtons.length ? handButtons : [el("span", {
      text: "no hand" })]),
    el("span", { class: "meta", text: ` · ${when}` }),
    el("span", { class: "count", testid: "count",
                 text: ` · ${incident.count} alert${incident.count === 1 ? "" : "s"}` }),
  ]);
  const lines = [head, line("rule", `${incident.rule_id} — ${incident.rule_title}`),
                 line("meta seats", `seats ${seatNames(incident.seats, incident.players)}`, "seats"),
                 line("observed", incident.observed), line("ruling", `Ruling: ${incident.ruling}`)];
  if (incident.rule_ids.length > 1) lines.push(line("meta", `rules ${incident.rule_ids.join(", ")}`));
  if (incident.escalated_from) lines.push(line("escalated", `escalated from ${incident.escalated_from}`));
  const review = incident.reviews[incident.reviews.length - 1];
  if (review) {
    lines.push(line("review", `${incident.state} · ${review.action} by ${review.by}` +
                    `${review.note ? `: “${review.note}”` : ""} · ${clock(review.time)}`, "review"));
  }
  if (incident.keep) lines.push(line("meta", "evidence kept from retention", "kept"));
  return lines;
}

function incidentDetails(incident) {
  const rows = incident.alerts.map((id) => {
    const a = alerts.get(id);
    const text = a ? `${id} · ${a.rule_id} · seats ${seatNames(a.seats, a.players)} · ${a.observed} · ${a.status}` +
      ` · ${Math.round(a.confidence * 100)}%` : `${id} (not seen by this page)`;
    return el("li", { text, testid: "incident-alert" });
  });
  const parts = [el("div", { class: "meta", text: `incident ${incident.id} · revision ${incident.revision}` }),
                 el("h3", { text: "Alerts" }), el("ul", {}, rows)];
  if (incident.reviews.length) {
    parts.push(el("h3", { text: "Reviews" }), el("ul", {}, incident.reviews.map((r) => el("li", {
      testid: "review-entry", text: `${clock(r.time)} · ${r.action} by ${r.by}${r.note ? `: “${r.note}”` : ""}` }))));
  }
  if (incident.bundles.length) {
    parts.push(el("h3", { text: "Case files" }), el("ul", {}, incident.bundles.map((b) => el("li", {
      testid: "bundle", text: b }))));
  }
  return parts;
}

// --- alerts outside incidents, muted alerts --------------------------------------------------------------

function renderAlerts() {
  const f = filters();
  const held = new Set();
  for (const incident of incidents.values()) incident.alerts.forEach((id) => held.add(id));
  const byTime = (a, b) => (a.time < b.time ? 1 : -1);
  const shown = (a) => matches(a, f, Date.parse(a.time), [a.rule_id]);
  const loose = [...alerts.values()].filter((a) => !a.muted && a.status === "open" && !held.has(a.id) && shown(a))
    .sort(byTime);
  const muted = f.muted ? [...alerts.values()].filter((a) => a.muted && shown(a)).sort(byTime) : [];
  const sig = (list) => list.map((a) => a.msg_id).join() + by;
  if (sig(loose) !== looseSig) {
    looseSig = sig(loose);
    $("alerts").replaceChildren(...loose.map((a) => alertCard(a, true)));
  }
  $("loose-box").hidden = !loose.length;
  if (sig(muted) !== mutedSig) {
    mutedSig = sig(muted);
    $("muted").replaceChildren(...muted.map((a) => alertCard(a, false)));
  }
  $("muted-box").hidden = !f.muted;
}

function alertCard(a, acknowledgeable) {
  const key = `${a.site}/${a.table}`;
  const card = el("article", { class: `alert ${a.severity} ${a.status}${a.muted ? " muted" : ""}`,
                               testid: a.muted ? "muted-alert" : "alert" });
  Object.assign(card.dataset, { id: a.id, table: key, rule: a.rule_id });
  const ev = a.evidence;
  const still = safeUrl(ev.still_url);
  const clip = safeUrl(ev.clip_url);
  if (still) card.appendChild(el("img", { src: still, alt: `still of ${a.rule_id}` }));
  const body = el("div", { class: "body" });
  const line = (cls, text) => body.appendChild(el("div", { class: cls, text }));
  line("rule", `${a.rule_id} — ${a.rule_title}`);
  line("meta", `${key} · hand ${a.hand_no ?? "-"} · ${a.street ?? ""} · seats ${seatNames(a.seats, a.players)} · ` +
               `${clock(a.time)} · ${a.severity} · ${Math.round(a.confidence * 100)}%`);
  line("observed", a.observed);
  line("ruling", `Ruling: ${a.ruling}`);
  line("meta", (a.muted ? "muted · " : "") + (a.acknowledged_by ? `acknowledged by ${a.acknowledged_by}` : a.status));
  if (clip && ev.clip_ready) {
    body.appendChild(el("a", { href: clip, text: "clip", testid: "clip-link" }));
  } else if (clip) {
    line("meta", "clip being written…");
  }
  if (acknowledgeable && a.status === "open") {
    const button = el("button", { type: "button", text: "Acknowledge" });
    button.onclick = () => acknowledge(a);
    body.appendChild(button);
  }
  card.appendChild(body);
  return card;
}

// --- hands -----------------------------------------------------------------------------------------------

function showHand(handKey, ts = null) {
  shownHand = handKey;
  renderHand();
  $("hand").scrollIntoView({ block: "nearest" });
  if (ts !== null) seekHand(ts);
}

function renderHand() {
  const box = $("hand");
  box.hidden = shownHand === null;
  if (shownHand === null) {
    handSig = "";
    $("hand-clip").replaceChildren();
    return;
  }
  const [siteId, tableId, n] = shownHand.split("/");
  const hand = hands.get(shownHand);
  $("hand-title").textContent = `hand ${n} · ${siteId}/${tableId}`;
  const moments = hand ? handMoments(hand) : null;
  const sig = hand ? drawnAs(shownHand, hand, moments) : shownHand;
  if (sig === handSig) return;  // rebuilt only when it changed: a render must not stop the recording playing
  const sameHand = hand && handSig.startsWith(`${shownHand}|${hand.msg_id}|`);
  handSig = sig;
  if (!hand) {
    $("hand-meta").textContent = "Not finished yet, or finished before this page was opened: the page shows the " +
      "hands that end while it is open (the hand archive keeps them all).";
    $("hand-phh").textContent = "";
    for (const id of ["hand-clip", "hand-timeline", "hand-steps"]) $(id).replaceChildren();
    return;
  }
  const holes = Object.entries(hand.hole_cards).map(([seat, cards]) => `${seat}: ${cards.join(" ")}`).join(" · ");
  $("hand-meta").replaceChildren(...[[`ended ${clock(hand.time)} · session ${hand.session} · ` +
    `${hand.alerts.length} alert(s)`, "hand-ended"], [holes ? `hole cards ${holes}` : "", "hand-holes"],
  ...summaryLines(hand.summary)].filter(([text]) => text).map(([text, testid]) => el("div", { text, testid })));
  if (!sameHand) $("hand-clip").replaceChildren(handRecording(hand));
  $("hand-timeline").replaceChildren(timeline(hand, moments, seekHand, false));
  $("hand-steps").replaceChildren(...handSteps(hand, moments));
  $("hand-phh").textContent = hand.phh ?? "(no hand history was made for this hand)";
}

// The hand's recording (hand.clip): its time 0 is clip.from_ts on the table's clock. It is fetched whole (a few MB
// at a few frames a second), so it seeks anywhere whatever the server (mosquitto's serves no byte ranges); it is
// written within moments of the hand's end, so a fetch that fails is tried again a few times.
function handRecording(hand) {
  const clip = hand.clip;
  if (!clip) return el("div", { class: "meta", text: "no recording of this hand (the table records none)" });
  const url = safeUrl(clip.url);
  if (!url) return missing("recording", clip.url);
  const video = el("video", { controls: "", preload: "auto", testid: "hand-video", muted: "" });
  const note = el("div", { class: "meta", testid: "hand-video-note", text: "loading the hand's recording…" });
  const load = async (tries) => {
    try {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const blob = await response.blob();
      if (!video.isConnected) return;  // another hand is shown by now
      if (recordingUrl) URL.revokeObjectURL(recordingUrl);
      recordingUrl = URL.createObjectURL(blob);
      video.src = recordingUrl;
      note.textContent = "";
    } catch (err) {
      if (tries > 0) setTimeout(() => load(tries - 1), RECORDING_RETRY_MS);
      else note.textContent = `the hand's recording did not load (${err.message})`;
    }
  };
  load(RECORDING_TRIES);
  return el("div", {}, [video, note]);
}

// Play the hand's recording from a little before ``ts`` (the table's clock).
function seekHand(ts) {
  const hand = hands.get(shownHand);
  const video = $("hand-clip").querySelector("video");
  if (!hand || !hand.clip || !video) return;
  const at = Math.max(0, ts - hand.clip.from_ts - SEEK_LEAD_S);
  const go = () => {
    video.currentTime = at;
    video.play().catch(() => {});  // a browser may refuse to play before a gesture: the frame is shown
  };
  if (video.readyState >= 1) go();
  else video.addEventListener("loadedmetadata", go, { once: true });
}

// The hand's actions (its summary's, with their time on the table's clock) and the alerts of the hand this page
// has seen; the summary is free-form, so only entries with a finite time count, and all of it is shown as text.
function handMoments(hand) {
  const actions = (Array.isArray(hand.summary.actions) ? hand.summary.actions : []).slice(0, MAX_STEPS)
    .filter((a) => a && typeof a === "object" && Number.isFinite(a.ts));
  const raised = hand.alerts.map((id) => alerts.get(id)).filter((a) => a && Number.isFinite(a.ts));
  return { actions, raised };
}

// What a drawing of a hand depends on: the hand's revision and how many of its alerts the page has seen.
const drawnAs = (handKey, hand, moments) => `${handKey}|${hand.msg_id}|${moments.raised.length}`;

const actionText = (a) => [a.street, a.seat != null ? `seat ${a.seat}` : null, a.kind, a.amount]
  .filter((x) => x !== null && x !== undefined && x !== "").map(String).join(" ");

function svg(tag, attrs = {}, title = "") {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (title) node.appendChild(document.createElementNS("http://www.w3.org/2000/svg", "title")).textContent = title;
  return node;
}

// The hand on its time line: the alerts above (by severity), the actions beneath, each street named where it
// begins; a click on a mark calls pick(ts).
function timeline(hand, { actions, raised }, pick, compact) {
  const times = [hand.started_ts, hand.ended_ts, ...actions.map((a) => a.ts), ...raised.map((a) => a.ts)]
    .filter(Number.isFinite);
  const t0 = Math.min(...times);
  const span = Math.max(Math.max(...times) - t0, 1);
  const [width, height, axis] = compact ? [600, 30, 16] : [1000, 70, 34];
  const x = (t) => (10 + (width - 20) * (t - t0) / span).toFixed(1);
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: `timeline${compact ? " compact" : ""}`,
                            role: "img", "aria-label": `hand ${hand.hand_no}: ${actions.length} actions, ` +
                            `${raised.length} alerts` });
  root.dataset.testid = compact ? "table-timeline" : "timeline";
  root.appendChild(svg("line", { x1: 10, x2: width - 10, y1: axis, y2: axis, class: "axis" }));
  let street = null;
  for (const a of actions) {
    const tick = svg("line", { x1: x(a.ts), x2: x(a.ts), y1: axis, y2: axis + (compact ? 9 : 14), class: "tick",
                               "data-testid": "action-mark", "data-ts": a.ts }, `${actionText(a)} · ${a.ts.toFixed(1)} s`);
    tick.addEventListener("click", () => pick(a.ts));
    root.appendChild(tick);
    if (!compact && a.street !== street) {
      root.appendChild(svg("text", { x: x(a.ts), y: axis + 28, class: "street" })).textContent = String(a.street);
    }
    street = a.street;
  }
  for (const a of raised) {
    const mark = svg("circle", { cx: x(a.ts), cy: axis - (compact ? 8 : 14), r: compact ? 5 : 7,
                                 class: `mark ${a.severity}`, "data-testid": "alert-mark", "data-ts": a.ts },
                     `${a.rule_id} · seats ${a.seats.join(", ")} · ${a.ts.toFixed(1)} s`);
    mark.addEventListener("click", () => pick(a.ts));
    root.appendChild(mark);
  }
  return root;
}

// The hand step by step: each action and alert in time, each playing the recording from that moment.
function handSteps(hand, { actions, raised }) {
  const steps = [...actions.map((a) => ({ ts: a.ts, text: actionText(a), cls: "step" })),
                 ...raised.map((a) => ({ ts: a.ts, text: `${a.rule_id} — ${a.rule_title}`, cls: `step ${a.severity}` }))]
    .sort((a, b) => a.ts - b.ts);
  return steps.map((step) => {
    const play = el("button", { type: "button", class: "linkish", text: `▶ ${step.ts.toFixed(1)} s`,
                                title: hand.clip ? "play the hand's recording from here" : "no recording" });
    if (hand.clip) play.onclick = () => seekHand(step.ts);
    else play.disabled = true;
    const item = el("li", { class: step.cls, testid: "step" }, [play, el("span", { text: ` ${step.text}` })]);
    item.dataset.ts = step.ts;
    return item;
  });
}

// The hand's summary, free-form (the schema checks nothing inside): the winnings and the rules broken, anything else
// but the actions (the hand's steps) as JSON; all of it only ever text.
function summaryLines(summary) {
  const { winnings, violations, actions, ...rest } = summary;
  const lines = [];
  const plain = (value) => value && typeof value === "object" && !Array.isArray(value);
  if (plain(winnings)) {
    lines.push([`winnings ${Object.entries(winnings).map(([seat, n]) => `seat ${seat}: ${n}`).join(", ")}`,
                "hand-winnings"]);
  }
  if (Array.isArray(violations) && violations.length) {
    lines.push([`rules broken ${violations.join(", ")}`, "hand-rules"]);
  }
  if (Object.keys(rest).length) lines.push([`summary ${JSON.stringify(rest).slice(0, 1000)}`, "hand-summary"]);
  return lines;
}

// --- commands --------------------------------------------------------------------------------------------

function newId(prefix) {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return `${prefix}-${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

// Sends `body` (checked against its own schema first) on `topic` at QoS 1; `done(error)` once the broker took it
// (null) or refused it.
function send(kind, topic, body, done) {
  const error = schemaError(schemas[kind], body, registry);
  if (error) return `not sent: ${error}`;
  if (!client || !client.connected) return "not sent: not connected to the broker";
  client.publish(topic, JSON.stringify(body), { qos: 1 }, (err) => done(err ? `the broker refused it: ${err.message}`
                                                                                : null));
  return null;
}

function sendReview(id, action) {
  const incident = incidents.get(id);
  const view = cards.get(id);
  if (!incident || !view) return;
  const note = view.note.value.trim();
  refusals.delete(id);
  if (action === "dismiss" && !note) {  // the table would refuse it too; say so before sending
    refusals.set(id, "A dismissal needs a reason: write it in the note, then Dismiss.");
    scheduleRender();
    return;
  }
  const body = { schema: "tablewatch/review/1", msg_id: newId("rv"), site: incident.site, table: incident.table,
                 incident_id: id, action, by, time: new Date().toISOString(), note };
  // (the table keeps an incident's last REVIEW_LOG reviews: a full log shifts by one as ours comes in)
  const seen = Math.min(incident.reviews.length, REVIEW_LOG - 1);
  const asked = { action, by, note, seen, at: Date.now(), error: null };
  const error = send("review", `tablewatch/${incident.site}/${incident.table}/review/${by}`, body, (err) => {
    if (err && pending.get(id) === asked) asked.error = `${action}: ${err}`;
    scheduleRender();
  });
  if (error) {
    refusals.set(id, `${action}: ${error}`);
  } else {
    pending.set(id, asked);
    setTimeout(scheduleRender, ANSWER_WAIT_MS + 100);
  }
  scheduleRender();
}

function sendSwitch(key, rule, change, text) {
  const [siteId, tableId] = key.split("/");
  const t = tables.get(key);
  const body = { schema: "tablewatch/alerting-set/1", msg_id: newId("as"), site: siteId, table: tableId, by,
                 time: new Date().toISOString(), rule_id: rule, enabled: null, mute_for_s: null, note: "", ...change };
  const asked = { text, msgId: t && t.alerting ? t.alerting.msg_id : null, at: Date.now(), error: null };
  const error = send("alerting-set", `tablewatch/${siteId}/${tableId}/alerting/set/${by}`, body, (err) => {
    if (err && switching.get(key) === asked) asked.error = `${text}: ${err}`;
    scheduleRender();
  });
  if (error) asked.error = `${text}: ${error}`;
  switching.set(key, asked);
  setTimeout(scheduleRender, ANSWER_WAIT_MS + 100);
  scheduleRender();
}

// An alert of a table that sends no incidents is acknowledged on its own (ack/<user>).
function acknowledge(a) {
  const body = { schema: "tablewatch/ack/1", msg_id: newId("ak"), site: a.site, table: a.table, alert_id: a.id, by,
                 time: new Date().toISOString(), note: "" };
  const error = send("ack", `tablewatch/${a.site}/${a.table}/ack/${by}`, body, () => scheduleRender());
  if (error) console.warn(`acknowledgement of ${a.id} ${error}`);
}

// --- statistics ------------------------------------------------------------------------------------------

// The table groups an operator put beside the page (optional): a name to the tables in it. Hostile like the rest:
// anything but {"name": ["site/table", …], …} is refused whole, with the reason shown.
async function loadGroups() {
  try {
    const response = await fetch(GROUPS_FILE, { cache: "no-store" });
    if (response.status === 404) return;
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const body = JSON.parse(await response.text());
    if (!body || typeof body !== "object" || Array.isArray(body)) throw new Error("not an object of groups");
    const entries = Object.entries(body);
    if (entries.length > MAX_GROUPS) throw new Error(`more than ${MAX_GROUPS} groups`);
    const read = new Map();
    for (const [name, members] of entries) {
      if (name.length > 64 || !Array.isArray(members) || !members.every((m) => typeof m === "string" &&
                                                                        TABLE_KEY.test(m))) {
        throw new Error(`group ${JSON.stringify(name.slice(0, 64))}: expected a list of "site/table"`);
      }
      read.set(name, new Set(members));
    }
    groups = read;
    groupsNote = "";
  } catch (err) {
    groupsNote = `${GROUPS_FILE} refused: ${err.message}`;
  }
  scheduleRender();
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
let statsShown = null;

function renderStats() {
  const per = $("stats-by").value;
  if (statsShown && statsShown.stats === stats && statsShown.note === statsNote && statsShown.per === per) return;
  statsShown = { stats, note: statsNote, per };
  const body = $("stats-body");
  body.replaceChildren();
  $("stats-made").textContent = stats ? `· ${stats.made_at}` : "";
  if (statsNote || !stats) {
    body.appendChild(el("p", { class: "note", text: statsNote || "loading…" }));
    if (!stats) return;
  }
  const rows = stats[per];
  const top = Object.fromEntries(Object.keys(BARS).map((k) => [k, Math.max(1e-9, ...rows.map((r) => r[k] || 0))]));
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  for (const [, label] of STATS_COLUMNS) head.appendChild(document.createElement("th")).textContent = label || per;
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

// --- connection and sign-in ------------------------------------------------------------------------------

// All at once: mosquitto's http_dir answers each request in about 300 ms, one after another would take seconds.
async function loadSchemas() {
  await Promise.all(Object.entries(SCHEMA_FILES).map(async ([kind, file]) => {
    const response = await fetch(file);
    if (!response.ok) throw new Error(`${file}: HTTP ${response.status}`);
    schemas[kind] = await response.json();
    registry[schemas[kind].$id] = schemas[kind];
  }));
}

function showWho() {
  $("who").textContent = signedIn ? `signed in as ${signedIn}` : client ? `reviews as ${by}` : "";
  $("sign-out").hidden = !signedIn;
}

function showSignIn(user, why, error) {
  $("signin").hidden = false;
  $("signin-why").textContent = why;
  $("signin-error").textContent = error || "";
  $("signin-clear").hidden = !(wsUrl.startsWith("ws:") && !/^ws:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(wsUrl));
  if (user) $("signin-user").value = user;
  (user ? $("signin-pass") : $("signin-user")).focus();
}

// Closes a client for good: its handlers go (a late event of an old client changes nothing), an error is swallowed.
function drop(c) {
  c.removeAllListeners();
  c.on("error", () => {});
  c.end(true);
}

// Connects as `user` (null: without credentials, for a broker that takes anonymous consoles).
function connect(user, password) {
  if (client) drop(client);
  signedIn = null;
  by = user ?? (params.get("by") || "surveillance");
  const options = { protocolVersion, clientId: `tw-web-${Math.random().toString(16).slice(2, 10)}`,
                    reconnectPeriod: 2000, connectTimeout: 5000 };
  if (user !== null) Object.assign(options, { username: user, password });
  setLink(false, user === null ? "connecting…" : `signing in as ${user}…`);
  const c = mqtt.connect(wsUrl, options);
  client = c;
  let connected = false;
  c.on("connect", () => {
    if (client !== c) return;
    connected = true;
    signedIn = user;
    $("signin").hidden = true;
    $("signin-error").textContent = "";
    showWho();
    setLink(true, `live · ${wsUrl}`);
    for (const leaf of LEAVES) c.subscribe(`tablewatch/${site}/+/${leaf}`, { qos: 1 });
    scheduleRender();
  });
  c.on("message", (topic, payload) => {
    if (client === c) onMessage(topic, payload);
  });
  c.on("reconnect", () => {
    if (client === c) setLink(false, "reconnecting…");
  });
  c.on("close", () => {  // a central NATS node drops an MQTT 5 client without a word
    if (client === c) setLink(false, connected || protocolVersion !== 5 ? "broker unreachable" :
      "broker unreachable, or it refuses MQTT 5 (a central node: add mqtt=3.1.1 to this page's address)");
  });
  c.on("error", (err) => {
    if (client !== c) return;
    if (!REFUSED.includes(err.code)) {
      setLink(false, `error: ${err.message}`);
      return;
    }
    drop(c);
    client = null;
    signedIn = null;
    showWho();
    const said = String(err.message).replace(/^Connection refused: /, "");
    if (user === null) {
      setLink(false, "sign-in needed");
      showSignIn("", "This broker needs a user name and a password.");
    } else {
      setLink(false, "sign-in refused");
      showSignIn(user, "Sign in again.", `Sign-in refused for ${user}: the broker said “${said}”. Check the user ` +
                 "name and the password.");
    }
  });
  showWho();
}

function signOut() {
  if (client) drop(client);
  client = null;
  signedIn = null;
  for (const store of [alerts, incidents, tables, hands, pending, refusals, switching, flashUntil, cards, tableViews]) {
    store.clear();
  }
  looseSig = mutedSig = "";
  shownHand = null;
  setLink(false, "signed out");
  showWho();
  showSignIn("", "Signed out.");
  render();
}

function start() {
  for (const id of ["filter-since", "filter-group", "filter-table", "filter-rule", "filter-severity", "filter-seat",
                    "filter-state", "filter-muted", "stats-by"]) $(id).onchange = render;
  $("filter-seat").oninput = render;
  $("hand-close").onclick = () => {
    shownHand = null;
    renderHand();
  };
  $("sign-out").onclick = signOut;
  $("signin").onsubmit = (event) => {
    event.preventDefault();
    const user = $("signin-user").value.trim();
    const password = $("signin-pass").value;
    $("signin-pass").value = "";
    $("signin-error").textContent = "";
    if (user) connect(user, password);
  };
  document.addEventListener("click", seenAll);
  document.addEventListener("keydown", seenAll);
  document.body.dataset.rings = "0";
  loadStats();
  loadGroups();
  setInterval(loadStats, STATS_EVERY_MS);
  setInterval(loadGroups, STATS_EVERY_MS);
  setInterval(scheduleRender, 30000);  // "muted until" runs out, "since" moves on
  const user = params.get("user");
  if (user && params.has("pass")) {
    connect(user, params.get("pass"));  // a kiosk
  } else if (user) {
    setLink(false, "sign-in needed");
    showSignIn(user, `Sign in as ${user}, or as someone else.`);
  } else {
    connect(null, null);  // a broker that wants credentials refuses, and the form is shown
  }
  render();
}

loadSchemas().then(start, (err) => setLink(false, `can't load the payload schemas: ${err.message}`));
