// A seat's page: draws the seat's view (GET /api/seat/<token>, then each server-sent view of /stream) and
// sends the seat's answers (POST /answer). Every player's text goes into the page as text (textContent), never
// as markup. The controls of a turn are drawn once per turn, so a view that arrives while one types keeps
// what was typed.
"use strict";

const token = location.pathname.split("/").pop();
const api = `/api/seat/${encodeURIComponent(token)}`;
let shownTurn = null; // the number of the turn whose controls are drawn
let deadline = null; // Date.now() when the open turn's clock runs out
let stream = null;
let drawnVersion = -1; // the version of the last view drawn: an older one (a slow GET) is dropped

function el(tag, attrs = {}, text = null) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  return node;
}

function $(id) { return document.getElementById(id); }

async function send(turn, answer) {
  const buttons = $("controls").querySelectorAll("button");
  buttons.forEach((b) => { b.disabled = true; });
  $("controls").dataset.sending = "1";
  $("refused").textContent = "";
  // The response can arrive after the stream has drawn the seat's next turn (a statement's self-analysis opens
  // as soon as the statement is taken): it then speaks of a turn no longer shown and must leave the page alone.
  const stillShown = () => shownTurn === turn;
  let response;
  try {
    response = await fetch(`${api}/answer`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ turn, answer }),
    });
  } catch (err) {
    if (!stillShown()) return;
    $("refused").textContent = "Could not reach the server; try again.";
    buttons.forEach((b) => { b.disabled = false; });
    delete $("controls").dataset.sending;
    return;
  }
  if (response.ok) {
    if (!stillShown()) return;
    $("turn").hidden = true;
    $("status").textContent = "Answer sent. Waiting for the others…";
    return;
  }
  const body = await response.json().catch(() => ({ error: response.statusText }));
  if (!stillShown()) return;
  $("refused").textContent = `Not taken: ${body.error}`;
  buttons.forEach((b) => { b.disabled = false; });
  delete $("controls").dataset.sending;
  if (response.status === 409) refresh();
}

function slider(id, label, min, max, step, value) {
  const wrap = el("label", { for: id });
  wrap.append(label + " ");
  const out = el("output", { id: `${id}-value`, for: id }, String(value));
  const input = el("input", { type: "range", id, min, max, step, value });
  input.addEventListener("input", () => { out.textContent = input.value; });
  wrap.append(out, input);
  return wrap;
}

function drawTargets(box, turn) {
  for (const name of turn.targets) {
    const button = el("button", { type: "button", class: "target", "data-target": name }, name);
    button.addEventListener("click", () => send(turn.number, name));
    box.append(button);
  }
  if (turn.null_ok) {
    const none = el("button", { type: "button", class: "target", "data-target": "none" },
      turn.kind === "vote" ? "Nobody (abstain)" : "Nobody");
    none.addEventListener("click", () => send(turn.number, "none"));
    box.append(none);
  }
}

function drawBid(box, turn) {
  const max = turn.max_bid ?? 10;
  box.append(slider("bid", `How much you want the floor (0 to ${max}):`, 0, max, 1, 0));
  const go = el("button", { type: "button", id: "send", class: "primary" }, "Bid");
  go.addEventListener("click", () => send(turn.number, { bid: Number($("bid").value) }));
  box.append(go);
}

function drawText(box, turn) {
  const area = el("textarea", { id: "say", "aria-label": turn.kind === "statement" ? "Your statement" : "Your notes" });
  const count = el("p", { class: "count", id: "count" });
  const limits = () => {
    const words = area.value.trim() ? area.value.trim().split(/\s+/).length : 0;
    const parts = [];
    if (turn.max_words) parts.push(`${words} of ${turn.max_words} words`);
    if (turn.max_chars) parts.push(`${area.value.length} of ${turn.max_chars} characters`);
    count.textContent = parts.join(", ") + (turn.max_words ? " (longer statements are cut)" : "");
    const over = (turn.max_words && words > turn.max_words) || (turn.max_chars && area.value.length > turn.max_chars);
    count.classList.toggle("over", Boolean(over));
  };
  area.addEventListener("input", limits);
  limits();
  const go = el("button", { type: "button", id: "send", class: "primary" }, turn.kind === "statement" ? "Say it" : "Save");
  go.addEventListener("click", () => send(turn.number, { [turn.kind]: area.value }));
  box.append(area, count, go);
}

function drawAnalysis(box, turn) {
  // Nothing is chosen for the person: Send waits for a verdict and the probability (and, for a peer, the
  // suspicion), so a quick click never records a default as a judgement.
  const peer = turn.kind === "peer_analysis";
  const touched = new Set();
  const verdict = el("fieldset", { id: "verdict" });
  verdict.append(el("legend", {}, peer ? "Was this statement deceptive?" : "Was your statement deceptive?"));
  for (const [value, text] of [["yes", "Yes, deceptive"], ["no", "No, honest"]]) {
    const label = el("label");
    const radio = el("input", { type: "radio", name: "deceptive", id: `deceptive-${value}`, value });
    radio.addEventListener("change", () => { touched.add("verdict"); update(); });
    label.append(radio, ` ${text}`);
    verdict.append(label);
  }
  box.append(verdict);
  const probability = slider("probability", "Probability that it is deceptive:", 0, 1, 0.05, 0.5);
  box.append(probability);
  const typeLabel = el("label", { for: "lie-type" }, "Kind of deception: ");
  const select = el("select", { id: "lie-type" });
  select.append(el("option", { value: "" }, "choose…"));
  for (const kind of turn.lie_types) if (kind !== "none") select.append(el("option", { value: kind }, kind));
  select.addEventListener("change", () => update());
  typeLabel.append(select);
  box.append(typeLabel);
  const needed = ["verdict", "probability"];
  if (peer) {
    box.append(slider("suspicion", "How likely the speaker is a werewolf:", 0, 1, 0.05, 0.5));
    needed.push("suspicion");
    turn.subjects.forEach((name, i) => {
      box.append(slider(`subject-${i}`, `How likely ${name} is a werewolf:`, 0, 1, 0.05, 0.5));
    });
  }
  for (const id of needed.slice(1)) $(id).addEventListener("input", () => { touched.add(id); update(); });
  const hint = el("p", { id: "analysis-hint", class: "count" });
  const go = el("button", { type: "button", id: "send", class: "primary" }, "Send my analysis");
  function update() {
    const deceptive = $("deceptive-yes").checked;
    select.disabled = !deceptive;
    if (!deceptive) select.value = "";
    const missing = needed.filter((id) => !touched.has(id));
    if (deceptive && !select.value) missing.push("kind");
    hint.textContent = missing.length ? `Still to answer: ${missing.join(", ")}.` : "";
    go.disabled = missing.length > 0 || Boolean(box.dataset.sending); // one answer in flight at a time
  }
  go.addEventListener("click", () => {
    const deceptive = $("deceptive-yes").checked;
    const answer = {
      is_deceptive: deceptive,
      confidence: Number($("probability").value),
      deception_type: deceptive ? select.value : "none",
    };
    if (peer) {
      answer.suspicion = Number($("suspicion").value);
      if (turn.subjects.length) {
        answer.suspicion_of = Object.fromEntries(turn.subjects.map((n, i) => [n, Number($(`subject-${i}`).value)]));
      }
    }
    send(turn.number, answer);
  });
  box.append(hint, go);
  update();
}

function drawTurn(turn) {
  const box = $("controls");
  box.replaceChildren();
  box.dataset.kind = turn.kind;
  box.dataset.turn = String(turn.number);
  delete box.dataset.sending;
  $("task").textContent = turn.task;
  $("refused").textContent = "";
  if (turn.kind === "bid") drawBid(box, turn);
  else if (turn.kind === "statement" || turn.kind === "summary") drawText(box, turn);
  else if (turn.kind === "self_analysis" || turn.kind === "peer_analysis") drawAnalysis(box, turn);
  else if (turn.targets.length || turn.null_ok) drawTargets(box, turn);
  else {
    const go = el("button", { type: "button", id: "send", class: "primary" }, "Continue");
    go.addEventListener("click", () => send(turn.number, {}));
    box.append(go);
  }
}

function drawReveal(reveal) {
  $("reveal").hidden = false;
  $("winner").textContent = reveal.winner ? `The ${reveal.winner} team won.` : "The game ended undecided.";
  const you = reveal.you;
  $("you").textContent = `You judged ${you.lies_judged} lies and caught ${you.lies_caught}; ` +
    `you flagged ${you.false_alarms} of ${you.truths_judged} honest statements; you told ${you.lies_told} lies.`;
  const rows = $("roles").querySelector("tbody");
  rows.replaceChildren();
  for (const p of reveal.players) {
    const tr = el("tr");
    tr.append(el("td", {}, p.name), el("td", {}, p.role), el("td", {}, p.team), el("td", {}, p.human ? "a person" : "an agent"));
    rows.append(tr);
  }
  const list = $("truth");
  list.replaceChildren();
  for (const s of reveal.statements) {
    const li = el("li", { class: "statement" });
    li.append(el("strong", {}, `${s.speaker} (round ${s.round}): `), document.createTextNode(`“${s.text}” `));
    if (s.lie === null) li.append(el("span", {}, "(no ground truth)"));
    else if (s.lie) li.append(el("span", { class: "lie" }, `A LIE (${s.lie_type || "deceptive"}).`));
    else li.append(el("span", { class: "truth" }, "Honest."));
    const caught = s.caught_by.length ? s.caught_by.join(", ") : "nobody";
    li.append(document.createTextNode(` Flagged by ${caught}.`));
    list.append(li);
  }
}

function tick() {
  if (deadline === null) { $("clock").textContent = ""; return; }
  const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
  $("clock").textContent = `${left} s left`;
  $("clock").classList.toggle("short", left <= 10);
}

function render(view) {
  if (typeof view.version === "number") {
    if (view.version < drawnVersion) return;
    drawnVersion = view.version;
  }
  $("title").textContent = `Werewolf: you are ${view.name}`;
  document.title = view.turn ? `Your turn: Werewolf (${view.name})` : `Werewolf (${view.name})`;
  $("card").textContent = view.card;
  const history = $("history");
  const atBottom = history.scrollHeight - history.scrollTop - history.clientHeight < 40;
  history.replaceChildren(...view.history.map((line) => el("li", {}, line)));
  if (atBottom) history.scrollTop = history.scrollHeight;
  $("notice").textContent = view.notice || "";
  const states = {
    waiting: `Waiting for ${view.waiting_for.join(", ")} to open their link; the game starts when everyone has.`,
    playing: view.alive ? "Waiting for the others…" : "You have been eliminated: you follow the game to its end.",
    over: "The game is over.",
    failed: view.error || "The game stopped.",
    stopped: "The server stopped before the game ended.",
    expired: "Nobody started this game in time: its link has expired.",
  };
  if (view.study && view.state === "playing") {
    states.playing += " Keep this page's address: it is your way back to your game.";
  }
  $("status").textContent = states[view.state] || view.state;
  const turn = view.turn;
  if (turn) {
    $("turn").hidden = false;
    $("status").textContent = "Your turn.";
    if (turn.number !== shownTurn) {
      shownTurn = turn.number;
      drawTurn(turn);
    }
    deadline = turn.seconds_left === null ? null : Date.now() + turn.seconds_left * 1000;
  } else {
    $("turn").hidden = true;
    shownTurn = null;
    deadline = null;
  }
  tick();
  if (view.reveal) drawReveal(view.reveal);
  if (view.state !== "waiting" && view.state !== "playing" && stream) {
    stream.close();
    stream = null;
  }
}

async function refresh(join = false) {
  // Joining is the page's own request (opening the link in a preview does not join the game).
  const response = join ? await fetch(`${api}/join`, { method: "POST" }) : await fetch(api);
  if (response.ok) render(await response.json());
  else $("status").textContent = "This link opens no seat. Ask the host for yours.";
  return response.ok;
}

async function start() {
  if (!(await refresh(true))) return;
  stream = new EventSource(`${api}/stream`);
  stream.onmessage = (event) => render(JSON.parse(event.data));
  stream.onerror = () => { if (stream) $("status").textContent = "Connection lost; reconnecting…"; };
  setInterval(tick, 1000);
}

start();
