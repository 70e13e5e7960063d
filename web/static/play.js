// The play screen: shows the referee's view and sends the controller's taps.
// Live updates come by server-sent events; EventSource reconnects by itself, and a slow poll
// covers the time it is down.
"use strict";

const csrf = document.querySelector('meta[name="csrf-token"]').content;
const $ = (id) => document.getElementById(id);
let view = null;
let controller = document.body.dataset.controller === "true" || $("role").textContent === "Controller";

async function post(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
    body: JSON.stringify(body || {}),
    credentials: "same-origin",
  });
  const data = await response.json().catch(() => ({ error: "the referee sent no answer" }));
  if (!response.ok) {
    throw new Error(data.error || `request failed (${response.status})`);
  }
  return data;
}

function showError(message) {
  const toast = $("error");
  toast.textContent = message;
  toast.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => { toast.hidden = true; }, 6000);
}

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

async function act(action) {
  try {
    render(await post("/api/action", { action }));
  } catch (err) {
    showError(err.message);
  }
}

function render(next) {
  view = next;
  controller = Boolean(next.controller);
  document.body.classList.toggle("spectator", !controller);
  $("role").textContent = controller ? "Controller" : "Spectator";
  $("login").hidden = controller;
  $("game-title").textContent = next.title || next.game || "";
  $("round").textContent = next.round ?? "–";
  $("phase").textContent = next.phase || "";
  $("prompt").textContent = next.prompt || "";
  $("status").textContent = next.status || "";

  const forced = $("forced");
  forced.replaceChildren(...(next.forced_moves || []).map((m) => el("li", m.done ? `Done: ${m.text}` : m.text, m.done ? "done" : "")));

  const options = $("options");
  options.replaceChildren(...(next.options || []).map((o) => {
    const button = el("button");
    button.type = "button";
    button.dataset.action = o.action;
    button.append(el("span", o.action, "verb"), document.createTextNode(o.label));
    // G-2: a decision the table is thrown after waits until the camera has seen the forced moves made.
    button.disabled = !controller || Boolean(next.question) || Boolean(o.waits_for_camera);
    button.addEventListener("click", () => act(o.action));
    return button;
  }));
  const cardGame = next.game === "pennies-from-heaven";
  $("options-title").hidden = !(next.options || []).length;
  $("options-title").textContent = next.moves_awaited ? "Your options, once the camera sees the moves made" : "Your options";
  $("manual").hidden = !controller || !(next.awaiting_chance || cardGame);
  $("cards").hidden = !controller || !cardGame;
  $("manual-action").placeholder = cardGame ? "meld 7H 7D 7C" : throwExample(next);

  const question = next.question;
  $("question").hidden = !question;
  if (question) {
    $("question-text").textContent = question.text;
    if (question.crop_url) { $("question-crop").src = question.crop_url; }
    $("question-crop").hidden = !question.crop_url;
    $("question-crop").classList.toggle("several", (question.refs || []).length > 1);
    $("question-choices").replaceChildren(...question.choices.map((choice) => {
      const button = el("button", choice);
      button.type = "button";
      button.disabled = !controller;
      button.addEventListener("click", async () => {
        try { render(await post("/api/answer", { question: question.id, answer: choice })); }
        catch (err) { showError(err.message); }
      });
      return button;
    }));
  }
  const discrepancy = next.discrepancy;
  $("discrepancy").hidden = !discrepancy;
  if (discrepancy) {
    $("problems").replaceChildren(...discrepancy.problems.map((p) => el("li", p)));
  }
  $("table-is-right").hidden = !controller || !next.can_confirm_table;

  const tbody = $("scores").tBodies[0];
  tbody.replaceChildren(...Object.entries(next.scores || {}).map(([name, score]) => {
    const row = el("tr");
    if (name === next.to_act) row.className = "current";
    row.append(el("td", name), el("td", String(score), "num"));
    return row;
  }));
  const winners = $("winners");
  winners.hidden = !next.terminal;
  winners.textContent = next.terminal ? `Winner: ${(next.winners || []).join(" and ")}` : "";

  $("history").replaceChildren(...(next.history || []).slice().reverse().map((h) => el("li", h)));
  $("undo").disabled = !controller || !(next.history || []).length;
  $("redo").disabled = !controller || !next.can_redo;

  const odds = $("odds");
  const values = next.expected_values || {};
  odds.replaceChildren(...Object.entries(values).map(([action, value]) =>
    el("p", `${action}: expected ${Number(value).toFixed(2)} points`)));
  $("odds-toggle").hidden = Object.keys(values).length === 0;
}

async function refresh() {
  try {
    const response = await fetch("/api/state", { credentials: "same-origin" });
    if (response.ok) render(await response.json());
  } catch (err) {
    $("status").textContent = "Reconnecting to the referee…";
  }
}

function listen() {
  const events = new EventSource("/api/events");
  events.addEventListener("state", (event) => {
    const next = JSON.parse(event.data);
    next.controller = controller;
    render(next);
  });
  events.onerror = () => {
    $("status").textContent = "Reconnecting to the referee…";
    // A refused stream (every live stream taken: 503) is closed for good: poll until one is free.
    if (events.readyState === EventSource.CLOSED) pollThenListen();
  };
  events.onopen = () => refresh();
}

async function pollThenListen() {
  for (let polls = 0; polls < 30; polls += 1) {
    await refresh();
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  listen();
}

$("undo").addEventListener("click", async () => {
  try { render(await post("/api/undo")); } catch (err) { showError(err.message); }
});
$("redo").addEventListener("click", async () => {
  try { render(await post("/api/redo")); } catch (err) { showError(err.message); }
});
$("table-is-right").addEventListener("click", async () => {
  try { render(await post("/api/table-is-right")); } catch (err) { showError(err.message); }
});
$("odds-toggle").addEventListener("click", () => {
  $("odds").hidden = !$("odds").hidden;
  $("odds-toggle").textContent = $("odds").hidden ? "Show odds" : "Hide odds";
});
$("manual").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $("manual-action");
  if (input.value.trim()) act(input.value.trim());
  input.value = "";
});
$("login").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    await post("/api/login", { pin: $("pin").value });
    $("pin").value = "";
    $("login-error").textContent = "";
    controller = true;
    await refresh();
  } catch (err) {
    $("login-error").textContent = err.message;
  }
});

// Pennies From Heaven: cards are entered with a picker until a camera reads them.
const CARD_VERBS = ["draw", "upcard", "red-threes", "take-pile", "meld", "add", "discard", "bury", "go-out", "ask", "answer", "reveal", "+"];
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "JK"];
const SUITS = [["H", "♥"], ["D", "♦"], ["C", "♣"], ["S", "♠"]];
let pendingRank = null;

function pickerButton(text, title, onTap) {
  const button = el("button", text);
  button.type = "button";
  button.title = title;
  button.addEventListener("click", onTap);
  return button;
}

function appendWord(word) {
  const input = $("manual-action");
  input.value = (input.value.trim() + " " + word).trim();
}

$("card-verbs").append(...CARD_VERBS.map((verb) => pickerButton(verb, `start: ${verb}`, () => {
  if (verb === "+") appendWord("+"); else $("manual-action").value = verb;
})));
$("card-ranks").append(...RANKS.map((rank) => pickerButton(rank, `rank ${rank}`, () => {
  if (rank === "JK") { appendWord("JK"); pendingRank = null; return; }
  pendingRank = rank;
})));
$("card-suits").append(...SUITS.map(([suit, symbol]) => pickerButton(symbol, `suit ${suit}`, () => {
  if (pendingRank) { appendWord(pendingRank + suit); pendingRank = null; }
})));

refresh();
listen();
setInterval(refresh, 15000);

// An example of the throw to type, in this game's words: the last throw entered or read, else
// dice faces where the game is played with dice (SPD, Sevens, FLIP), else coin faces.
function throwExample(next) {
  const last = [...(next.history || [])].reverse().find((action) => /^(throw|roll) /.test(action));
  if (last) return last;
  const items = Object.values(next.zones || {}).flat();
  const dice = items.some((item) => /^d\d+$/.test(item.kind));
  const verb = ["sevens", "flip"].includes(next.game) ? "roll" : "throw";
  return dice ? `${verb} 1 2 3 4 5 6` : `${verb} 3H 4T`;
}
