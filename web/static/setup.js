// The set-up screen: choose the game, its house rules (each explained), the players and a PIN.
"use strict";

const csrf = document.querySelector('meta[name="csrf-token"]').content;
const games = JSON.parse(document.getElementById("games-data").textContent);
const gameSelect = document.getElementById("game");
const fieldset = document.getElementById("options");

function renderOptions() {
  const game = games.find((g) => g.name === gameSelect.value);
  const legend = document.createElement("legend");
  legend.textContent = "House rules";
  fieldset.replaceChildren(legend);
  for (const option of game.options) {
    const id = `opt-${option.key}`;
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = `${option.key} (${option.rule})`;
    let input;
    if (option.choices.length) {
      input = document.createElement("select");
      for (const choice of option.choices) {
        const item = document.createElement("option");
        item.value = choice;
        item.textContent = choice;
        input.append(item);
      }
    } else {
      input = document.createElement("input");
      input.placeholder = option.accepted;
    }
    input.id = id;
    input.name = option.key;
    input.value = option.default === null ? "" : String(option.default);
    const help = document.createElement("p");
    help.className = "option-help";
    help.textContent = option.help;
    fieldset.append(label, input, help);
  }
}

gameSelect.addEventListener("change", renderOptions);
renderOptions();

document.getElementById("setup").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const game = games.find((g) => g.name === form.get("game"));
  const options = {};
  for (const option of game.options) {
    const value = form.get(option.key);
    if (value !== null && value !== "" && value !== String(option.default)) options[option.key] = value;
  }
  const body = {
    game: game.name,
    players: String(form.get("players")).split(",").map((p) => p.trim()).filter(Boolean),
    first: String(form.get("first") || "").trim() || null,
    options,
    pin: form.get("pin"),
  };
  const response = await fetch("/api/match", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
  const data = await response.json().catch(() => ({}));
  if (response.ok) {
    window.location.href = "/";
  } else {
    document.getElementById("setup-error").textContent = data.error || "the game could not be started";
  }
});
