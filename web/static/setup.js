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
    // The house rule in a sentence; its key and rule in small print, for the rule book and files.
    label.append(document.createTextNode(option.help || option.key));
    const key = document.createElement("small");
    key.className = "option-key";
    key.textContent = ` ${option.key}${option.rule ? ` · ${option.rule}` : ""}`;
    label.append(key);
    let input;
    if (option.choices.length) {
      input = document.createElement("select");
      for (const choice of option.choices) {
        const item = document.createElement("option");
        item.value = choice;
        item.textContent = { true: "yes", false: "no" }[choice] || choice.replaceAll("_", " ");
        input.append(item);
      }
    } else {
      input = document.createElement("input");
      input.placeholder = option.accepted;
    }
    input.id = id;
    input.name = option.key;
    input.value = option.default === null ? "" : String(option.default);
    fieldset.append(label, input);
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
    current_pin: form.get("current_pin"),
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

// Learning this table: confirm the faces of the table's own coins on the last settled read.
const learnList = document.getElementById("learn-coins");
const learnStatus = document.getElementById("learn-status");
const learnConfirm = document.getElementById("learn-confirm");

async function learnRequest(method, body) {
  const response = await fetch("/api/learn", {
    method,
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error || `the request failed (${response.status})`);
  return data;
}

function showLearned(data) {
  learnStatus.textContent = data.can_learn
    ? `${data.learned} coin(s) and ${data.dice_learned} dice of this table learned so far.` +
      (data.learned_outdated
        ? " The coins were learned with an earlier coin reader: their faces are not used until you confirm a table again."
        : "")
    : "This table has no camera reader to teach.";
}

function showCoins(data) {
  learnList.replaceChildren(...data.coins.map((coin) => {
    const item = document.createElement("li");
    const picture = document.createElement("img");
    picture.src = `${coin.crop_url}?t=${Date.now()}`;
    picture.alt = `${coin.kind} ${coin.ref}`;
    const face = document.createElement("select");
    face.dataset.ref = String(coin.ref);
    face.setAttribute("aria-label", `face of ${coin.kind} ${coin.ref}`);
    for (const choice of [...coin.choices.map(String), "skip"]) {
      const option = document.createElement("option");
      option.value = choice;
      option.textContent = choice === "skip" ? "not sure: skip" : choice;
      face.append(option);
    }
    const read = coin.guess ?? coin.value;  // the face read, sure or not
    face.value = read === null || read === undefined ? "skip" : String(read);
    const label = document.createElement("span");
    label.textContent = coin.kind;
    item.append(picture, label, face);
    return item;
  }));
  learnConfirm.hidden = data.coins.length === 0;
  if (data.coins.length === 0) learnStatus.textContent = "No coin or die read yet: throw them and wait for the picture.";
}

document.getElementById("learn-read").addEventListener("click", async () => {
  try {
    const data = await learnRequest("GET");
    showLearned(data);
    showCoins(data);
  } catch (error) {
    learnStatus.textContent = error.message;
  }
});

learnConfirm.addEventListener("click", async () => {
  const faces = {};
  for (const select of learnList.querySelectorAll("select")) faces[select.dataset.ref] = select.value === "skip" ? null : select.value;
  try {
    showLearned(await learnRequest("POST", { faces }));
    learnList.replaceChildren();
    learnConfirm.hidden = true;
  } catch (error) {
    learnStatus.textContent = error.message;
  }
});

document.getElementById("learn-forget").addEventListener("click", async () => {
  try {
    showLearned(await learnRequest("DELETE"));
  } catch (error) {
    learnStatus.textContent = error.message;
  }
});
