// card_envs in the browser: draws the server's scenes as SVG and sends the person's moves.
// The server decides everything (what a seat may see, which moves are legal); this page only
// draws what it gets and posts the clicked action ids. See card_envs/web/server.py.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG_NS = "http://www.w3.org/2000/svg";
const page = {
  mode: "play", games: [], look: {}, match: null, players: 0, timer: null, records: [], positions: [],
};

// --- talking to the server ------------------------------------------------------------------
async function api(method, path, body) {
  document.body.dataset.state = "busy";
  $("error").hidden = true;
  try {
    const init = { method, headers: {} };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
    return data;
  } catch (err) {
    $("error").textContent = err.message;
    $("error").hidden = false;
    stopRunning();
    return null;
  } finally {
    document.body.dataset.state = "ready";
  }
}

// --- drawing a scene (core/scene.py says how each item looks) --------------------------------
function el(name, attrs, parent) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function text(parent, x, y, content, size, opts = {}) {
  const t = el("text", {
    x, y, "font-size": size, "font-family": "sans-serif",
    "text-anchor": opts.anchor || "start", fill: opts.colour || page.look.text,
    "font-weight": opts.bold ? "bold" : "normal",
  }, parent);
  t.textContent = content;
  return t;
}

function outline(item) {
  return item.mark ? { stroke: page.look.mark, "stroke-width": 3 } : {};
}

const DRAW = {
  panel(g, it) {
    el("rect", { x: it.x, y: it.y, width: it.w, height: it.h, rx: 8, fill: it.colour,
      ...outline(it) }, g);
    if (it.label) text(g, it.x + 10, it.y + 17, it.label, 13);
  },
  card(g, it) {
    if (it.down) {
      el("rect", { x: it.x, y: it.y, width: it.w, height: it.h, rx: 5, fill: page.look.back,
        stroke: page.look.edge, "stroke-width": 1, ...outline(it) }, g);
      el("rect", { x: it.x + 4, y: it.y + 4, width: it.w - 8, height: it.h - 8, rx: 3,
        fill: "none", stroke: page.look.back_line, "stroke-width": 1 }, g);
      return;
    }
    el("rect", { x: it.x, y: it.y, width: it.w, height: it.h, rx: 5, fill: it.colour,
      stroke: page.look.edge, "stroke-width": 1, ...outline(it) }, g);
    text(g, it.x + it.w / 2, it.y + it.h / 2 + 6, it.label, 18,
      { anchor: "middle", bold: true, colour: it.ink });
    if (it.sub) text(g, it.x + it.w / 2, it.y + it.h - 6, it.sub, 10,
      { anchor: "middle", colour: it.ink });
  },
  chip(g, it) {
    el("circle", { cx: it.x, cy: it.y, r: it.r, fill: it.colour, stroke: page.look.edge,
      "stroke-width": 1 }, g);
    text(g, it.x, it.y + 5, it.label, 13, { anchor: "middle", bold: true, colour: it.ink });
  },
  text(g, it) {
    text(g, it.x, it.y, it.text, it.size, { anchor: it.anchor, bold: it.bold, colour: it.colour });
  },
};

function drawScene(scene) {
  const svg = el("svg", { viewBox: `0 0 ${scene.width} ${scene.height}`,
    width: scene.width, height: scene.height });
  el("rect", { x: 0, y: 0, width: scene.width, height: scene.height, fill: page.look.felt }, svg);
  for (const it of scene.items) {
    const g = el("g", {}, svg);
    DRAW[it.kind](g, it);
    if (it.action !== undefined) {
      g.classList.add("clickable");
      g.dataset.action = it.action;
      g.addEventListener("click", () => play(it.action));
    }
  }
  return svg;
}

// an agent's top actions with their probabilities, and its value, beside its move
function policyText(policy) {
  const span = document.createElement("span");
  span.className = "policy";
  const top = policy.top.map((t) => `${t.text} ${(100 * t.p).toFixed(1)}%`).join(", ");
  const value = policy.value === null ? "" : `; value ${policy.value.toFixed(2)}`;
  span.textContent = ` (policy: ${top}${value})`;
  return span;
}

function show(view) {
  if (!view) return;
  $("table").replaceChildren(drawScene(view.scene));
  const buttons = view.buttons.map((b) => {
    const button = document.createElement("button");
    button.textContent = b.label;
    button.dataset.action = b.action;
    button.addEventListener("click", () => play(b.action));
    return button;
  });
  $("buttons").replaceChildren(...buttons);
  $("log").replaceChildren(...view.log.map((m) => {
    const li = document.createElement("li");
    li.textContent = `${m.who}: ${m.text}`;
    if (m.policy) li.append(policyText(m.policy));
    return li;
  }));
  $("log").scrollTop = $("log").scrollHeight;
  $("result").hidden = !view.over;
  $("result").textContent = view.over ? `Game over: ${view.result.text}.` : "";
  document.body.dataset.step = view.step;
  document.body.dataset.over = view.over;
  if (view.over) stopRunning();
}

// --- play and watch -------------------------------------------------------------------------
function currentGame() {
  return page.games.find((g) => g.env_id === $("game").value);
}

function currentPosition() {
  return page.positions.find((p) => p.name === $("position").value);
}

// value: the option's default, or the chosen position's config, which then cannot change
function optionInput(opt, value, locked) {
  const label = document.createElement("label");
  label.title = opt.doc;
  label.append(`${opt.name} `);
  let input;
  if (opt.type === "bool") {
    input = document.createElement("input");
    input.type = "checkbox";
    input.checked = value;
  } else if (opt.type === "choice") {
    input = document.createElement("select");
    for (const c of opt.choices) input.append(new Option(c, c, c === value, c === value));
  } else if (opt.type === "int") {
    input = document.createElement("input");
    input.type = "number";
    input.value = value;
    if (opt.low !== null) input.min = opt.low;
    if (opt.high !== null) input.max = opt.high;
  } else {
    input = document.createElement("input");
    input.value = JSON.stringify(value);
  }
  input.disabled = locked;
  input.id = `opt-${opt.name}`;
  input.dataset.type = opt.type;
  input.dataset.name = opt.name;
  if (opt.name === "num_players") input.addEventListener("change", drawSeats);
  label.append(input);
  return label;
}

// the built-in positions of the selected game; "a fresh deal" (value "") is the default
function drawPositions() {
  const here = page.positions.filter((p) => p.env_id === $("game").value);
  const kept = here.some((p) => p.name === $("position").value) ? $("position").value : "";
  $("position").replaceChildren(new Option("a fresh deal", ""), ...here.map((p) =>
    new Option(p.finished ? `${p.name} (finished)` : p.name, p.name)));
  $("position").value = kept;
  $("position-label").hidden = here.length === 0;
  drawOptions();
}

function drawOptions() {
  const game = currentGame();
  const position = currentPosition();
  $("options").replaceChildren(...game.options.map((opt) =>
    optionInput(opt, position ? position.config[opt.name] : opt.default, Boolean(position))));
  $("position-text").textContent = position ? position.description : "";
  $("position-text").hidden = !position;
  $("seats").replaceChildren();
  drawSeats();
}

function readConfig() {
  const config = {};
  for (const input of $("options").querySelectorAll("input, select")) {
    const type = input.dataset.type;
    if (type === "bool") config[input.dataset.name] = input.checked;
    else if (type === "int") config[input.dataset.name] = Number(input.value);
    else if (type === "json") config[input.dataset.name] = JSON.parse(input.value);
    else config[input.dataset.name] = input.value;
  }
  return config;
}

function drawSeats() {
  const game = currentGame();
  const n = game.single ? 1 : Number($("opt-num_players").value);
  const choices = page.mode === "play" ? ["human", ...game.agents] : game.agents;
  const best = game.agents.includes("ppo") ? "ppo" : "heuristic";
  const before = [...document.querySelectorAll(".seat")].map((s) => s.value);
  if (before.length === n && before.every((v) => choices.includes(v))) return;  // kept as set
  const seats = [];
  for (let p = 0; p < n; p++) {
    const label = document.createElement("label");
    label.append(`player_${p} `);
    const select = document.createElement("select");
    select.id = `seat-${p}`;
    select.className = "seat";
    const pick = page.mode === "play" && p === 0 ? "human" : best;
    for (const c of choices) {
      select.append(new Option(c === "human" ? "you" : c, c, c === pick, c === pick));
    }
    label.append(select);
    seats.push(label);
  }
  $("seats").replaceChildren(...seats);
  const viewers = [new Option("all cards", "all")];
  for (let p = 0; p < n; p++) viewers.push(new Option(`player_${p}`, String(p)));
  $("viewer").replaceChildren(...viewers);
}

async function deal() {
  stopRunning();
  closeMatch();
  let config;
  try {
    config = readConfig();
  } catch (err) {
    $("error").textContent = `an option is not valid JSON: ${err.message}`;
    $("error").hidden = false;
    return;
  }
  const agents = [...document.querySelectorAll(".seat")].map((s) => s.value);
  const data = await api("POST", "/api/matches", {
    env_id: $("game").value, config, agents, seed: Number($("seed").value),
    position: currentPosition()?.name,
  });
  if (!data) return;
  page.match = data.id;
  if (page.mode === "watch") return view();
  show(data.view);
}

async function play(action) {
  if (!page.match || document.body.dataset.state === "busy") return;
  show(await api("POST", `/api/matches/${page.match}/play`, { action }));
}

async function view() {
  if (!page.match) return;
  show(await api("GET", `/api/matches/${page.match}?viewer=${$("viewer").value}`));
}

async function step() {
  if (!page.match || document.body.dataset.over === "true") return stopRunning();
  show(await api("POST", `/api/matches/${page.match}/step`, { viewer: $("viewer").value }));
}

function stopRunning() {
  if (page.timer) clearInterval(page.timer);
  page.timer = null;
  $("run").textContent = "Run";
}

function toggleRun() {
  if (page.timer) return stopRunning();
  page.timer = setInterval(() => {
    if (document.body.dataset.state !== "busy") step();
  }, 1000 / Number($("speed").value));
  $("run").textContent = "Pause";
}

function closeMatch() {
  if (page.match) navigator.sendBeacon(`/api/matches/${page.match}/close`);
  page.match = null;
}

// --- replays --------------------------------------------------------------------------------
function recordGame() {
  const source = page.records.find((s) => String(s.source) === $("source").value);
  return source ? [source, source.games[Number($("record").value)]] : [null, null];
}

function drawRecords() {
  const [source] = recordGame();
  const games = source ? source.games : [];
  $("record").replaceChildren(...games.map((g, i) => new Option(
    `${g.event} · table ${g.table} · game ${g.game} (${g.env_id}, ${g.length} moves)`, String(i))));
  pickRecord();
}

function pickRecord() {
  const [, game] = recordGame();
  const viewers = [new Option("all cards", "all")];
  if (game) game.seats.forEach((s, p) => viewers.push(new Option(`player_${p} (${s})`, String(p))));
  $("replay-viewer").replaceChildren(...viewers);
  $("slider").max = game ? game.length : 0;
  $("slider").value = 0;
  replayStep();
}

async function replayStep() {
  const [source, game] = recordGame();
  if (!game) return;
  const q = new URLSearchParams({
    source: source.source, event: game.event, table: game.table, game: game.game,
    step: $("slider").value, viewer: $("replay-viewer").value,
  });
  if (game.tournament) q.set("tournament", game.tournament);
  const data = await api("GET", `/api/replay?${q}`);
  if (!data) return;
  $("step-text").textContent = `move ${data.step} of ${data.length}`;
  show(data);
}

function nudge(delta) {
  const slider = $("slider");
  slider.value = Math.min(Number(slider.max), Math.max(0, Number(slider.value) + delta));
  replayStep();
}

function listGames(wanted) {
  // a single-agent game (alone, or against the built-in computer) is played, not watched
  const games = page.games.filter((g) => page.mode === "play" || !g.single);
  $("game").replaceChildren(...games.map((g) => new Option(g.title, g.env_id)));
  $("game").value = games.some((g) => g.env_id === wanted) ? wanted : games[0].env_id;
}

// --- the page -------------------------------------------------------------------------------
function setMode(mode) {
  stopRunning();
  closeMatch();
  page.mode = mode;
  for (const tab of document.querySelectorAll(".tab")) {
    tab.classList.toggle("active", tab.dataset.mode === mode);
  }
  $("setup").hidden = mode === "replay";
  $("replay-setup").hidden = mode !== "replay";
  $("watch-controls").hidden = mode !== "watch";
  $("table").replaceChildren();
  $("buttons").replaceChildren();
  $("log").replaceChildren();
  $("result").hidden = true;
  if (mode === "replay") {
    const names = page.records.map((s) => new Option(s.name, String(s.source)));
    $("source").replaceChildren(...names);
    drawRecords();
  } else {
    listGames($("game").value);
    drawPositions();
  }
}

async function start() {
  const data = await api("GET", "/api/games");
  const records = await api("GET", "/api/records");
  const positions = await api("GET", "/api/positions");
  if (!data || !records || !positions) return;
  page.games = data.games;
  page.look = data.look;
  page.records = records;
  page.positions = positions;
  listGames(new URLSearchParams(location.search).get("game") || "no_thanks_v0");
  $("game").addEventListener("change", drawPositions);
  $("position").addEventListener("change", drawOptions);
  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => setMode(tab.dataset.mode));
  }
  $("start").addEventListener("click", deal);
  $("step").addEventListener("click", step);
  $("run").addEventListener("click", toggleRun);
  $("viewer").addEventListener("change", view);
  $("speed").addEventListener("input", () => {
    $("speed-text").textContent = $("speed").value;
    if (page.timer) { stopRunning(); toggleRun(); }
  });
  $("source").addEventListener("change", drawRecords);
  $("record").addEventListener("change", pickRecord);
  $("replay-viewer").addEventListener("change", replayStep);
  $("slider").addEventListener("input", replayStep);
  $("back").addEventListener("click", () => nudge(-1));
  $("forward").addEventListener("click", () => nudge(1));
  window.addEventListener("pagehide", closeMatch);
  drawPositions();
  document.body.dataset.state = "ready";
}

start();
