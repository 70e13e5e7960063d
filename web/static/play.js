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
  // Beside the picture, at the top of the decision panel: never over the table's picture.
  const box = $("error");
  box.textContent = message;
  box.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => { box.hidden = true; }, 8000);
}

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

// Plain words: rule IDs ("(FL-3.3)", "(PW-4.1, PW-4.2)") become small tags, a house rule's
// "(original: ...)" a short note in small print.
const RULE_GROUP = /\s*\(((?:[A-Z]{1,3}-[A-Z]?\d+(?:\.\d+)*|A\d+|G-\d+)(?:,\s*(?:[A-Z]{1,3}-[A-Z]?\d+(?:\.\d+)*|A\d+|G-\d+))*)\)/g;

// A rule ID as a small tag. Where the tag stands alone (a prompt, a forced move, a problem) it is
// a button that opens the rule's words in the panel beside the picture; inside an option's button
// it is a plain tag (a button may not hold another), with the rule's title as its tooltip.
function ruleTag(id, opens) {
  const tag = el(opens ? "button" : "span", opens ? undefined : id, "rule");
  tag.title = `rule ${id} of the rule book`;
  if (opens) {
    // A touch target of 48 px round a tag that stays small.
    tag.append(el("span", id, "tag"));
    tag.type = "button";
    tag.dataset.rule = id;
    tag.setAttribute("aria-controls", "rule-panel");
    tag.addEventListener("click", (event) => { event.stopPropagation(); openRule(id); });
  }
  return tag;
}

let rulesIndex = null;

async function rules() {
  if (!rulesIndex) {
    const response = await fetch($("rule-panel").dataset.src, { credentials: "same-origin" });
    if (!response.ok) throw new Error(`the rule book could not be loaded (${response.status})`);
    rulesIndex = await response.json();
  }
  return rulesIndex;
}

async function openRule(id) {
  let rule;
  try {
    rule = (await rules())[id];
  } catch (err) {
    showError(err.message);
    return;
  }
  $("rule-title").textContent = rule && rule.title ? `${id} · ${rule.title}` : id;
  $("rule-text").textContent = rule ? rule.text : `Rule ${id} is not in the rule book this dashboard carries.`;
  $("rule-panel").hidden = false;
  $("rule-panel").dataset.rule = id;
  $("side").scrollTop = 0;
  $("rule-close").focus();
}

$("rule-close").addEventListener("click", () => { $("rule-panel").hidden = true; });

function plainText(node, text, tagsOpen = true) {
  node.replaceChildren();
  let rest = String(text || "");
  const notes = [];
  rest = rest.replace(/\s*\(original: ([^)]*)\)/g, (_, note) => { notes.push(note); return ""; });
  // Command syntax in a prompt ("upcard CARD", "dealt yes|no yes|no", "red-threes CARDS or
  // red-threes none"): the buttons and the card picker below say it in their own words.
  rest = rest.replace(/:\s*([a-z-]+) ((?:[A-Z]+S?|yes\|no)(?: (?:[A-Z]+S?|yes\|no))*)( or [a-z-]+ none)?(?=\s*(?:\(|;|$))/g,
    (_, verb, words, none) => /CARD/.test(words)
      ? `: tap “${verb}” and the card${/CARDS/.test(words) ? "s" : ""} in the picker below${none ? " (or enter none)" : ""}`
      : ": tap your answer below");
  rest = plainPhWords(rest);
  let last = 0;
  for (const match of rest.matchAll(RULE_GROUP)) {
    node.append(document.createTextNode(rest.slice(last, match.index)));
    for (const id of match[1].split(/,\s*/)) node.append(ruleTag(id, tagsOpen));
    last = match.index + match[0].length;
  }
  node.append(document.createTextNode(rest.slice(last)));
  for (const note of notes) node.append(el("small", ` (house rule; the rule book's own: ${note})`, "note"));
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
  plainText($("prompt"), next.prompt || "");
  $("status").textContent = next.status ? ` · ${plainPhWords(next.status)}` : "";

  const cardTable = next.game === "pennies-from-heaven";
  const forced = $("forced");
  forced.replaceChildren(...(next.forced_moves || []).map((m, index) => {
    // No camera reads cards: the players tick each to-do themselves as they carry it out.
    const key = `${next.match}:${next.log_length}:${index}`;
    const done = m.done || ticked.has(key);
    const item = el("li", undefined, done ? "done" : "");
    item.append(el("span", done ? "Done:" : "To do:", "state"));
    plainText(item.appendChild(el("span")), m.text);
    if (cardTable && !m.done) {
      item.classList.add("tick");
      item.tabIndex = 0;
      item.setAttribute("role", "checkbox");
      item.setAttribute("aria-checked", String(done));
      item.addEventListener("click", () => { if (ticked.has(key)) ticked.delete(key); else ticked.add(key); render(view); });
    }
    return item;
  }));
  document.body.classList.toggle("card-game", cardTable);
  // In landscape the card picker sits with the card table, leaving the panel to the to-dos, the
  // options and the entry box; in portrait, and with the camera's games, it sits in the panel.
  const entryHome = cardTable && window.matchMedia("(orientation: landscape)").matches ? $("card-table") : $("side");
  if ($("cards").parentElement !== entryHome) entryHome.insertBefore($("cards"), entryHome === $("side") ? $("manual") : null);
  $("picture").hidden = cardTable;
  $("card-table").hidden = !cardTable;
  if (cardTable) renderCardTable(next);

  renderOptions(next);
  const cardGame = next.game === "pennies-from-heaven";
  $("manual").hidden = !controller || !(next.awaiting_chance || cardGame);
  $("cards").hidden = !controller || !cardGame;
  $("manual-action").placeholder = cardGame ? "meld 7H 7D 7C" : throwHint(next);

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
    // A move still to do is listed once, among the forced moves, not again here.
    const todo = new Set((next.forced_moves || []).filter((m) => !m.done).map((m) => m.text));
    const problems = discrepancy.problems.filter((p) => !todo.has(p.replace(/^Still to do: /, "")));
    $("problems").replaceChildren(...problems.map((p) => plainText(el("li"), p)));
    $("problems").hidden = !problems.length;
    $("way-out").textContent = wayOut(next);
  }
  $("table-is-right").hidden = !controller || !next.can_confirm_table;
  $("choose-anyway").hidden = !controller || !tableMismatch(next) || next.can_confirm_table || next.moves_awaited
    || !(next.options || []).length;
  const said = historyWords(next);
  const lastAction = said.slice(-1)[0];
  $("discrepancy-undo").hidden = !controller || !discrepancy || !lastAction;
  $("discrepancy-undo").textContent = lastAction ? `Undo “${shortWords(lastAction)}”` : "Undo";
  $("undo").title = lastAction ? `Undo “${shortWords(lastAction)}”` : "";

  renderScores(next);
  renderLegend(next);
  const over = Boolean(next.terminal);
  const recordingOver = !over && next.loop && next.loop.state === "finished";
  $("recording-over").hidden = !recordingOver;
  $("game-over").hidden = !over;
  $("winners").textContent = over ? `Winner: ${(next.winners || []).join(" and ") || "nobody"}` : "";
  $("new-game").hidden = !controller;
  $("final-scores").textContent = over ? scoresText(next.scores, scoreUnit(next)) : "";
  const summary = next.round_summary;
  const summaryText = summary ? `Round ${summary.round} over: ${scoresText(summary.scores, scoreUnit(next))}` : "";
  $("round-summary").hidden = !summary || over || summary.just_ended;
  $("round-summary").textContent = summaryText;
  $("round-over").hidden = !summary || !summary.just_ended || over;
  $("round-over").textContent = summaryText;

  $("history").replaceChildren(...said.map((words, index) => {
    const item = plainText(el("li"), words, false);
    item.dataset.action = next.history[index];  // the command, for whoever reads the page's data
    return item;
  }).reverse());
  $("undo").disabled = !controller || !(next.history || []).length;
  $("redo").disabled = !controller || !next.can_redo;

  const odds = $("odds");
  const values = next.expected_values || {};
  const labels = Object.fromEntries((next.options || []).map((o) => [o.action, o.label]));
  odds.replaceChildren(...Object.entries(values).map(([action, value]) =>
    el("p", `${labels[action] || action}: on average ${Number(value).toFixed(2)} points`)));
  $("odds-box").hidden = Object.keys(values).length === 0;
}

// The history in words: each decision as its option said it (the view's history_labels), each
// throw or roll read out ("Threw 3 heads and 4 tails", "Rolled 1, 2, 3, 3, 4 and 6") and the
// first player named ("Ann goes first"); a command with neither (a card game's typed move) as
// it was entered.
function historyWords(next) {
  const labels = next.history_labels || [];
  return (next.history || []).map((action, index) => labels[index] || outcomeWords(action) || action);
}

function listWords(words) {
  return words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

function outcomeWords(action) {
  const [verb, ...faces] = String(action).trim().split(/\s+/);
  if (verb === "designate" && faces.length === 1) return `${faces[0]} goes first`;
  if (!["throw", "roll"].includes(verb) || !faces.length) return "";
  const coins = faces.map((face) => face.match(/^(\d+)([HT])$/));
  if (coins.every(Boolean)) {
    const counted = coins.map(([, n, side]) => `${n} ${side === "H" ? "head" : "tail"}${n === "1" ? "" : "s"}`);
    return `Threw ${listWords(counted)}`;
  }
  if (faces.every((face) => /^\d+$/.test(face))) return `${verb === "roll" ? "Rolled" : "Threw"} ${listWords(faces)}`;
  return "";
}

// An entry short enough for a button: without its rule IDs and its closing aside in brackets.
function shortWords(text) {
  return String(text).replace(RULE_GROUP, "").replace(/\s*\([^()]*\)\s*$/, "").trim();
}

// Why the options cannot be tapped now, in one sentence, or "" when they can.
function whyDisabled(next) {
  if (!(next.options || []).length) return "";
  if (!controller) return "You are watching: enter the control PIN above to play.";
  if (next.question) return "Answer the question above first.";
  if (next.moves_awaited) {
    if (next.after_undo) {
      return "The camera still sees the table as it was before your undo: put things back as the moves above say"
        + (next.can_confirm_table ? ", or tell me the table is right." : "; the options open once the camera sees it.");
    }
    return next.discrepancy
      ? "The camera does not see the moves made yet."
      : "Make the moves above: the options open once the camera sees them done.";
  }
  // G-2: no further input while the table differs from the referee's; the box above says how.
  if (tableMismatch(next)) return "Waiting for the table to match (see above).";
  return "";
}

// The discrepancy the players said is wrong ("the table is right: let me choose"): its id. The
// options open again for it; a new discrepancy closes them again.
let overruled = null;

// Whether the options wait for the table to match (a discrepancy the players have not overruled).
function tableMismatch(next) {
  return Boolean(next.discrepancy) && next.discrepancy.id !== overruled;
}

// Pennywise's options are many (up to 51: every coin put in with every change): they come in two
// steps, first the coin put in, then the change taken back. Other games' options are listed.
let chosenCoin = null;

function optionButton(o, text, next, why) {
  const button = el("button");
  button.type = "button";
  button.dataset.action = o.action;
  plainText(button, text, false);
  // G-2: a decision the table is thrown after waits until the camera has seen the forced moves
  // made, and no decision is taken while the table does not match the referee's.
  button.disabled = !controller || Boolean(next.question) || Boolean(o.waits_for_camera) || tableMismatch(next);
  if (button.disabled && why) button.title = why;
  button.addEventListener("click", () => act(o.action));
  return button;
}

function renderOptions(next) {
  const options = next.options || [];
  const why = whyDisabled(next);
  $("options-title").hidden = !options.length || !controller;
  $("options-title").textContent = next.moves_awaited ? "Your options, once the camera sees the moves made" : "Your options";
  $("options-why").hidden = !why;
  $("options-why").textContent = why;
  const grouped = next.game === "pennywise" && options.length > 6;
  $("options").classList.toggle("grouped", grouped);
  $("options").classList.remove("amounts", "cards");
  // Options waiting for the table to match are shown short (without their asides in brackets),
  // leaving the room to the box that says how to put the table right.
  const waiting = tableMismatch(next);
  $("options").classList.toggle("waiting", waiting);
  if (!grouped) {
    if (next.game === "pennies-from-heaven" && options.length > MANY_CARD_OPTIONS) {
      renderCardOptions(options, next, why);
      return;
    }
    $("options").replaceChildren(...options.map((o) => optionButton(o, waiting ? shortWords(o.label) : o.label, next, why)));
    return;
  }
  const head = (o) => String(o.label).split(", ")[0];
  const coins = [...new Set(options.map(head))];
  if (!coins.includes(chosenCoin)) chosenCoin = null;
  const row = el("div", undefined, "coin-row");
  $("options-title").textContent = "Your options: a coin, then the change";
  row.append(...coins.map((coin) => {
    const button = el("button", coin.replace(/^Put in an? /, ""), "group-choice");
    button.type = "button";
    button.title = coin;
    button.setAttribute("aria-pressed", String(coin === chosenCoin));
    button.disabled = !controller;
    button.addEventListener("click", () => { chosenCoin = coin === chosenCoin ? null : coin; chosenAmount = null; render(view); });
    return button;
  }));
  const nodes = [row];
  if (chosenCoin === null) {
    nodes.push(el("p", "Tap the coin you put in, then the change you take back.", "group"));
  } else {
    const mine = options.filter((o) => head(o) === chosenCoin);
    if (mine.length <= MANY_CHANGES) {
      nodes.push(el("h3", `${chosenCoin}, take back:`, "group"));
      nodes.push(...mine.map((o) => changeButton(o, next, why)));
    } else {
      nodes.push(...changeByAmount(mine, next, why));
    }
  }
  $("options").replaceChildren(...nodes);
}

// Pennies From Heaven's play step lists every card that may be discarded, buried or added to
// each meld, and every pair the pile may be taken with (over a hundred): those come in two steps,
// first what to do ("Di discards", "Di adds to meld 2"), then the cards. Single options stay
// buttons of their own.
const MANY_CARD_OPTIONS = 8;
const CARDS_AT_END = /^(.*?) ((?:(?:10|[2-9JQKA])[CDHS]|JK)(?: (?:(?:10|[2-9JQKA])[CDHS]|JK))*)( to meld \d+)?$/;
let chosenDoing = null;

function cardOption(o) {
  const found = String(o.label).match(CARDS_AT_END);
  return found ? { doing: found[1] + (found[3] || ""), cards: found[2] } : { doing: String(o.label), cards: "" };
}

function renderCardOptions(options, next, why) {
  const parts = options.map((o) => ({ o, ...cardOption(o) }));
  const doings = [...new Set(parts.map((p) => p.doing))];
  const many = (doing) => parts.filter((p) => p.doing === doing).length > 1;
  if (!doings.includes(chosenDoing) || !many(chosenDoing)) chosenDoing = null;
  $("options").classList.add("grouped");
  $("options-title").textContent = "Your options: what to do, then the cards";
  const row = el("div", undefined, "coin-row");
  row.append(...doings.map((doing) => {
    // The prompt names the player: the buttons say what they do ("Discards…", "Adds to meld 2…").
    const words = doing.replace(/^\S+ (?=\S)/, "");
    const short = words.charAt(0).toUpperCase() + words.slice(1);
    if (!many(doing)) return optionButton(parts.find((p) => p.doing === doing).o, short, next, why);
    const button = el("button", `${short}…`, "group-choice");
    button.type = "button";
    button.title = doing;
    button.setAttribute("aria-pressed", String(doing === chosenDoing));
    button.disabled = !controller;
    button.addEventListener("click", () => { chosenDoing = doing === chosenDoing ? null : doing; render(view); });
    return button;
  }));
  const nodes = [row];
  $("options").classList.toggle("cards", chosenDoing !== null);
  if (chosenDoing !== null) {
    nodes.push(el("h3", `${chosenDoing}:`, "group"));
    nodes.push(...parts.filter((p) => p.doing === chosenDoing).map((p) => optionButton(p.o, p.cards, next, why)));
  }
  $("options").replaceChildren(...nodes);
}

// A coin with more changes than fit the panel (a quarter: up to 35) asks first how much comes
// back, then, where there are several ways to make that amount, which coins.
const MANY_CHANGES = 12;
let chosenAmount = null;

// The change an option takes back, in cents: "put 25 take 10 1 1" takes back 12.
function amountBack(o) {
  const taken = String(o.action).split(" take ")[1] || "";
  return taken.split(/\s+/).filter((c) => /^\d+$/.test(c)).reduce((sum, c) => sum + Number(c), 0);
}

function changeByAmount(mine, next, why) {
  const amounts = [...new Set(mine.map(amountBack))].sort((a, b) => a - b);
  if (!amounts.includes(chosenAmount)) chosenAmount = null;
  if (chosenAmount !== null) {
    const back = el("button", "← other amounts", "group-choice");
    back.type = "button";
    back.addEventListener("click", () => { chosenAmount = null; render(view); });
    return [el("h3", `${chosenCoin}, ${chosenAmount}¢ back as:`, "group"), back,
      ...mine.filter((o) => amountBack(o) === chosenAmount).map((o) => changeButton(o, next, why))];
  }
  $("options").classList.add("amounts");
  // The question stands in the options' heading: the panel keeps its room for the amounts.
  $("options-title").textContent = `${chosenCoin}: how much back?`;
  const nodes = [];
  for (const amount of amounts) {
    const ways = mine.filter((o) => amountBack(o) === amount);
    if (ways.length === 1) {
      // One way to make the amount: the button takes it, naming the coins in small print.
      const button = optionButton(ways[0], `${amount}¢`, next, why);
      button.classList.add("amount-choice");
      button.append(el("small", changeWords(ways[0]).short, "total"));
      nodes.push(button);
      continue;
    }
    const button = el("button", undefined, "group-choice amount-choice");
    button.type = "button";
    button.dataset.amount = String(amount);
    button.append(el("span", `${amount}¢`, "amount"), el("small", `${ways.length} ways`, "total"));
    button.disabled = !controller;
    button.addEventListener("click", () => { chosenAmount = amount; render(view); });
    nodes.push(button);
  }
  return nodes;
}

// One change as a button: "take back a nickel and a penny (A then holds 43¢)" reads
// "nickel + penny" with the total in small print.
function changeButton(o, next, why) {
  const { short, holds } = changeWords(o);
  const button = optionButton(o, short, next, why);
  if (holds) button.append(el("small", ` → ${holds}`, "total"));
  return button;
}

function changeWords(o) {
  const rest = String(o.label).split(", ").slice(1).join(", ");
  const [, change, total] = rest.match(/^take (?:back )?(.*?)(?: back)?\s*(\([^)]*\))?$/) || [null, rest, ""];
  const holds = (total || "").match(/then holds ([^)]*)\)/);
  return { short: change.replace(/\ban? /g, "").replace(/ and /g, " + "), holds: holds ? holds[1] : "" };
}

// After a discrepancy, the one way forward.
function wayOut(next) {
  if (next.can_confirm_table) return "Make the moves listed, or, if they are made, tell me the table is right.";
  if (next.discrepancy && next.discrepancy.rethrow) return "Throw again as the prompt says.";
  const overrule = (next.options || []).length ? "; if the table is right, say so" : "";
  return `Put the table as listed, or undo a wrong answer or action${overrule}.`;
}

const ticked = new Set();

// Pennies From Heaven is played with cards the camera does not read: instead of a picture, the
// table as the rules hold it, zone by zone (hands, Pennies, melds, red threes, the piles).
const CARD_ZONES = [["draw", "Draw pile"], ["discard", "Discard pile"], ["hand", "hand"], ["pennies", "Pennies"],
  ["melds", "melds"], ["red-threes", "red threes"], ["buried", "buried"], ["supply", "Supply"]];

function zoneName(zone) {
  const [kind, owner] = zone.split(":");
  const title = (CARD_ZONES.find(([k]) => k === kind) || [kind, kind])[1];
  return owner ? `${owner.replace("+", " & ")}: ${title}` : title;
}

function renderCardTable(next) {
  const zones = Object.entries(next.zones || {}).filter(([zone, items]) => items.length || zone === "draw" || zone === "discard");
  $("card-zones").replaceChildren(...zones.map(([zone, items]) => {
    const tile = el("div", undefined, "card-zone");
    tile.append(el("span", zoneName(zone), "zone-name"));
    const [kind, owner] = zone.split(":");
    const melds = kind === "melds" && next.melds ? next.melds[owner] : null;
    if (melds && melds.length) {
      // A team's melds by the numbers the options use ("Adds to meld 2"): rank, size, canasta.
      const list = el("ol", undefined, "zone-melds");
      list.append(...melds.map((m) => el("li",
        `${m.number}. ${m.kind} ×${m.cards.length}${m.canasta ? (m.canasta === "natural" ? " canasta" : " mixed canasta") : ""}`)));
      tile.classList.add("melds-zone");
      tile.append(list);
      return tile;
    }
    const known = items.map((i) => i.value).filter((v) => v !== null && v !== undefined);
    const text = known.length ? known.join(" ") : `${items.length} card${items.length === 1 ? "" : "s"}`;
    tile.append(el("span", text, known.length ? "zone-cards" : "zone-count"));
    return tile;
  }));
}

const UNITS = { pennywise: "¢" };

// The unit of a game's scores: cents in Pennywise, nickels under T.K.O. (SPT: each player keeps
// a stack of nickels), points elsewhere (shown bare).
function scoreUnit(next) {
  if (Object.keys(next.zones || {}).some((zone) => zone.startsWith("nickels:"))) return " nickels";
  return UNITS[next.game] || "";
}

// A score with its unit: "64¢", "1 nickel", "3 nickels", "12".
function withUnit(score, unit) {
  return unit === " nickels" && Number(score) === 1 ? `${score} nickel` : `${score}${unit}`;
}

function scoresText(scores, unit) {
  return Object.entries(scores || {}).map(([name, score]) => `${name} ${withUnit(score, unit)}`).join(" · ");
}

function renderScores(next) {
  const unit = scoreUnit(next);
  const entries = Object.entries(next.scores || {});
  const best = Math.max(...entries.map(([, score]) => Number(score)));
  const tbody = $("scores").tBodies[0];
  tbody.replaceChildren(...entries.map(([name, score]) => {
    const row = el("tr");
    if (name === next.to_act) row.className = "current";
    if (next.terminal && (next.winners || []).includes(name)) row.classList.add("leader");
    const turn = name === next.to_act ? (next.terminal ? "" : "to play") : "";
    row.append(el("td", turn, "turn"), el("td", name), el("td", withUnit(score, unit), "num"));
    return row;
  }));
  $("scores").dataset.best = String(best);
  $("scores").classList.toggle("many", entries.length > 2);
}

// The numbered markers on the picture, named as the options name the objects.
function renderLegend(next) {
  const byMark = (a, b) => Number(a.mark) - Number(b.mark) || String(a.mark).localeCompare(String(b.mark));
  const legend = ((next.picture && next.picture.legend) || []).slice().sort(byMark);
  $("legend").replaceChildren(...legend.map((entry) => {
    const item = el("li", undefined, entry.state || "");
    item.append(el("span", entry.mark, "mark"), el("span", entry.name, "name"));
    if (entry.read) item.append(el("span", /^\d+$/.test(entry.read) ? `shows ${entry.read}` : entry.read, "read"));
    if (entry.state) item.append(el("span", entry.state, "state"));
    return item;
  }));
  $("legend").hidden = !legend.length;
  $("legend").classList.toggle("many", legend.length > 12);
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
$("discrepancy-undo").addEventListener("click", async () => {
  try { render(await post("/api/undo")); } catch (err) { showError(err.message); }
});
$("redo").addEventListener("click", async () => {
  try { render(await post("/api/redo")); } catch (err) { showError(err.message); }
});
$("table-is-right").addEventListener("click", async () => {
  try { render(await post("/api/table-is-right")); } catch (err) { showError(err.message); }
});
$("choose-anyway").addEventListener("click", () => {
  if (view && view.discrepancy) overruled = view.discrepancy.id;
  render(view);
});
$("odds-toggle").addEventListener("click", () => {
  $("odds").hidden = !$("odds").hidden;
  $("odds-toggle").textContent = $("odds").hidden ? "Show odds" : "Hide odds";
});
$("manual").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $("manual-action");
  if (input.value.trim()) act(typedAction(input.value.trim(), view));
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

window.matchMedia("(orientation: landscape)").addEventListener("change", () => { if (view) render(view); });
refresh();
listen();
setInterval(refresh, 15000);

// Whether this game's throw is of dice (SPD, Sevens, FLIP) rather than coins, and its verb.
function throwKind(next) {
  const items = Object.values(next.zones || {}).flat();
  const dice = items.some((item) => /^d\d+$/.test(item.kind));
  return { dice, verb: ["sevens", "flip"].includes(next.game) ? "roll" : "throw" };
}

// The form of a throw typed by hand, in words (never a past throw: the table shows this one);
// the label above the box says what to enter.
function throwHint(next) {
  return throwKind(next).dice ? "e.g. 1 2 3 4 5 6" : "e.g. 3 heads 4 tails";
}

// A throw typed in words ("3 heads 4 tails", "1 2 3 4 5 6") as the action the referee takes
// ("throw 3H 4T", "roll 1 2 3 4 5 6"); anything else (an action typed in full) is sent unchanged.
function typedAction(text, next) {
  const { dice, verb } = throwKind(next || {});
  const coins = /^(\d+)\s*heads?\s*(?:,|and)?\s*(\d+)\s*tails?$/i.exec(text);
  if (coins && !dice) return `${verb} ${coins[1]}H ${coins[2]}T`;
  const tails = /^(\d+)\s*tails?\s*(?:,|and)?\s*(\d+)\s*heads?$/i.exec(text);
  if (tails && !dice) return `${verb} ${tails[2]}H ${tails[1]}T`;
  if (dice && /^\d+(?:[\s,]+\d+)*$/.test(text)) return `${verb} ${text.split(/[\s,]+/).join(" ")}`;
  return text;
}

// Pennies From Heaven's prompts and options in the dashboard's words: the command syntax the
// terminal shows ("designate NAME", "discard CARD or go-out", "answer yes|no", "reveal Bo
// CARDS", "dealer perfect: yes; partner perfect: no") said as what to tap.
const DEAL_WORDS = {
  "yes yes": "Both deals perfect",
  "yes no": "Dealer's deal perfect, partner's not",
  "no yes": "Partner's deal perfect, dealer's not",
  "no no": "Neither deal perfect",
};
function plainPhWords(text) {
  return text
    .replace(/\bdealer perfect: (yes|no); partner perfect: (yes|no)\b/, (_, d, p) => DEAL_WORDS[`${d} ${p}`])
    .replace(/ \(designate NAME, (A\d+)\)/, ": tap who deals below ($1)")
    .replace(/, then discard CARD or go-out/, ", then discard a card or go out")
    .replace(/\btake-pile with\b/, "take the Discard Pile with")
    .replace(/; answer yes\|no(?=\s*(?:\(|$))/, "; tap yes or no below")
    .replace(/: reveal(?:-pennies)? \S+ CARDS(?=\s*(?:\(|$))/, ": enter them with the card picker below");
}
