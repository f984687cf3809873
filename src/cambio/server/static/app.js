// The Cambio web table: a plain JavaScript module, no build step, no dependencies.
//
// Without a token in the address it shows the form that creates a table. With
// #join=TOKEN it sits at that token's seat, with #watch=TOKEN it watches: it opens the
// WebSocket /ws?token=TOKEN, draws every `update` the server pushes (the seat's view,
// its legal actions and the events as that seat saw them) and sends `act` requests.
// It shows only what the server sends to the seat; it never asks for anything else.

const SUITS = { S: ["\u2660", "spades", false], H: ["\u2665", "hearts", true],
  D: ["\u2666", "diamonds", true], C: ["\u2663", "clubs", false] };
const RANKS = { A: "ace", J: "jack", Q: "queen", K: "king" };

const main = document.getElementById("main");
const statusLine = document.getElementById("status");
const errors = document.getElementById("errors");

// ------------------------------------------------------------------------------------
// Small helpers

/** Build an element: h("button", {class: "x", onclick: f}, "text", child, ...). */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

function showError(message) {
  const item = h("div", { class: "error" }, h("span", {}, message),
    h("button", { type: "button", "aria-label": "Dismiss this message",
      onclick: () => item.remove() }, "\u00d7"));
  errors.append(item);
  while (errors.children.length > 3) errors.firstElementChild.remove();
}

function clearErrors() { errors.replaceChildren(); }

/** Put `fresh` in `parent`, keeping each old child that would be drawn exactly the same.
 *
 * A redraw must not replace a button under the pointer: a click whose press and release
 * land on two different elements is lost (an update or a highlight ending between the
 * two did that to "Start the next round"). Same markup means the same element and the
 * same action, so the old one stays, with its listeners. */
function keepSame(parent, fresh) {
  const old = [...parent.children];
  const kept = fresh.map((node, i) => {
    const before = old[i];
    if (!before) return node;
    if (before.outerHTML === node.outerHTML) return before;
    if (sameShell(before, node) && onlyElements(before) && onlyElements(node)) {
      keepSame(before, [...node.children]);
      return before;
    }
    return node;
  });
  if (kept.length === old.length && kept.every((k, i) => k === old[i])) return;
  parent.replaceChildren(...kept);
}

/** The same tag with the same attributes (the children may differ). */
function sameShell(a, b) {
  if (a.tagName !== b.tagName || a.attributes.length !== b.attributes.length) return false;
  return [...a.attributes].every((at) => b.getAttribute(at.name) === at.value);
}

function onlyElements(node) { return [...node.childNodes].every((c) => c.nodeType === 1); }

/** A card's text ("10C", "Joker", "12") as {face, label, red}. */
function cardInfo(text) {
  if (text === null || text === undefined) return null;
  const suit = text.length > 1 ? SUITS[text.slice(-1)] : undefined;
  if (suit) {
    const rank = text.slice(0, -1);
    return { face: rank + suit[0], label: `${RANKS[rank] || rank} of ${suit[1]}`, red: suit[2] };
  }
  if (text.toLowerCase() === "joker") return { face: "Jkr", label: "joker", red: false };
  return { face: text, label: text, red: false };
}

/** "the 4 of spades", "a joker", "a 12". */
function withArticle(info) {
  if (!info) return "a card";
  if (info.label.includes(" of ")) return `the ${info.label}`;
  return /^[aeiou8]|^11$|^18$/i.test(info.label) ? `an ${info.label}` : `a ${info.label}`;
}

function miniCard(text) {
  const info = cardInfo(text);
  if (!info) return h("span", { class: "mini" }, "??");
  return h("span", { class: "mini" + (info.red ? " red" : ""), "aria-label": info.label }, info.face);
}

// ------------------------------------------------------------------------------------
// Creating a table

async function showCreate() {
  document.title = "Cambio: a new table";
  statusLine.textContent = "Create a table, then share its links.";
  let data;
  try {
    const response = await fetch("/api/variants");
    data = await response.json();
  } catch (error) {
    showError(`Cannot reach the server: ${error}`);
    return;
  }
  const variants = data.variants || [];
  const botNames = Object.keys(data.bots || {});
  const variant = h("select", { id: "variant", name: "variant" },
    variants.map((v) => h("option", { value: v.name, selected: v.name === "snap" },
      `${v.name}: ${v.summary}`)),
    h("option", { value: "" }, "Your own rules (paste TOML below)"));
  const rules = h("textarea", { id: "rules", name: "rules", spellcheck: "false",
    placeholder: 'extends = "snap"\nname = "our-table"\n...' });
  const rulesField = h("div", { class: "field", hidden: true },
    h("label", { for: "rules" }, "Your rule file (TOML)"), rules,
    h("p", { class: "hint" }, "It may extend a bundled profile with extends = \"name\"."));
  const players = h("input", { id: "players", type: "number", min: 1, max: 64, value: 3 });
  const seed = h("input", { id: "seed", type: "number", min: 0, placeholder: "random",
    "aria-describedby": "seed-hint" });
  const seats = h("fieldset", { class: "seats" });
  const aids = h("input", { id: "aids", type: "checkbox", "aria-describedby": "aids-hint" });
  const hints = h("input", { id: "hints", type: "checkbox", "aria-describedby": "hints-hint" });

  function chosen() { return variants.find((v) => v.name === variant.value); }
  function drawSeats() {
    const count = Math.max(1, Math.min(64, Number(players.value) || 1));
    const old = [...seats.querySelectorAll("select")].map((s) => s.value);
    seats.replaceChildren(h("legend", {}, "Who sits where"));
    for (let s = 0; s < count; s++) {
      const fallback = s < 2 ? "person" : (botNames.includes("memory") ? "memory" : botNames[0]);
      const value = old[s] || fallback;
      seats.append(h("label", { class: "field" }, `Seat ${s + 1}`,
        h("select", { name: `seat-${s}`, "data-seat": s },
          h("option", { value: "person", selected: value === "person" }, "a person"),
          botNames.map((b) => h("option", { value: b, selected: value === b },
            `a computer player (${b}: ${data.bots[b]})`)))));
    }
  }
  function onVariant() {
    const v = chosen();
    rulesField.hidden = Boolean(v);
    if (v) {
      players.min = v.players.min;
      players.max = v.players.max;
      players.value = v.players.default;
    } else {
      players.min = 1;
      players.max = 64;
    }
    drawSeats();
  }
  variant.addEventListener("change", onVariant);
  players.addEventListener("input", drawSeats);

  const result = h("section", { class: "panel", id: "links", "aria-live": "polite", hidden: true });
  const form = h("form", { class: "panel", id: "create" },
    h("h2", {}, "A new table"),
    h("div", { class: "field" }, h("label", { for: "variant" }, "House rules"), variant),
    rulesField,
    h("div", { class: "field" }, h("label", { for: "players" }, "Players"), players),
    seats,
    h("div", { class: "field check" }, h("label", { for: "aids" }, aids, " Learner's aids"),
      h("p", { class: "hint", id: "aids-hint" }, "Without aids you must remember your cards: " +
        "they turn face down once you hide them. With aids, every card you have seen stays " +
        "face up for the whole round, and every player is told the table has aids.")),
    h("div", { class: "field check" }, h("label", { for: "hints" }, hints, " Hints"),
      h("p", { class: "hint", id: "hints-hint" }, "With hints, the player whose decision it is " +
        "may ask which moves the computer thinks best, with their chances of winning; every " +
        "player is told the table has hints.")),
    h("div", { class: "field" }, h("label", { for: "seed" }, "Seed (optional, for a repeatable deal)"), seed,
      h("p", { class: "hint", id: "seed-hint" }, "A seed makes the table arranged: you could " +
        "know the cards, so every player and spectator is told. Without one the server " +
        "draws a secret deal.")),
    h("button", { type: "submit", class: "primary", id: "create-button" }, "Create the table"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors();
    const body = { players: Number(players.value), bots: {} };
    if (chosen()) body.variant = variant.value;
    else body.rules = rules.value;
    if (seed.value !== "") body.seed = Number(seed.value);
    if (aids.checked) body.aids = true;
    if (hints.checked) body.hints = true;
    for (const select of seats.querySelectorAll("select")) {
      if (select.value !== "person") body.bots[select.dataset.seat] = select.value;
    }
    let reply;
    try {
      const response = await fetch("/api/tables", { method: "POST",
        headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      reply = await response.json();
    } catch (error) {
      showError(`Cannot reach the server: ${error}`);
      return;
    }
    if (reply.type === "error") {
      showError(`The table was not created: ${plainMessage(reply)}`);
      return;
    }
    showLinks(result, reply);
  });
  onVariant();
  main.replaceChildren(form, result);
}

function showLinks(section, reply) {
  const rows = Object.entries(reply.links).map(([seat, link]) => {
    const n = Number(seat) + 1;
    const input = h("input", { type: "text", readonly: true, value: link,
      "aria-label": `Join link for seat ${n}` });
    return h("li", { "data-seat": seat },
      h("div", { class: "link-row" }, h("strong", {}, `Seat ${n}`),
        h("a", { href: link, class: "sit", "data-seat": seat }, `Sit at seat ${n} here`),
        h("button", { type: "button", onclick: () => copy(link) }, "Copy link")),
      input);
  });
  const watch = h("input", { type: "text", readonly: true, value: reply.spectator_link,
    "aria-label": "Spectator link" });
  const bots = Object.keys(reply.bots || {}).map((s) => `seat ${Number(s) + 1}`);
  section.replaceChildren(
    h("h2", {}, `A table of ${reply.players} at the ${reply.rules} rules`),
    h("p", { class: "hint" }, "Send each person their seat's link; anyone holding a link plays that seat." +
      (bots.length ? ` Computer players sit at ${bots.join(" and ")}.` : "")),
    reply.arranged ? h("p", { class: "hint", id: "arranged-created" }, "This table is arranged " +
      "(you gave the seed or the deck): every seat and spectator is told you may know the cards.") : null,
    h("ol", { class: "links" }, rows),
    h("p", {}, h("strong", {}, "Spectators: "), h("a", { href: reply.spectator_link }, "watch")),
    watch);
  section.hidden = false;
  section.querySelector("a.sit")?.focus();
}

async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    statusLine.textContent = "Link copied.";
  } catch {
    statusLine.textContent = "Select the link and copy it.";
  }
}

// ------------------------------------------------------------------------------------
// Sitting at a table

const LABELS = {
  draw: "Draw from the stock", take: "Take the discard", call: "Call Cambio",
  pass: "End the turn", discard: "Discard the held card", skip: "Skip the power",
  "re-peek": "Look again", "opening-peek": "Choose cards to look at", replace: "Replace a card",
  exchange: "Exchange matching cards", peek: "Peek at a card", swap: "Swap two cards",
  give: "Give a card", snap: "Snap!",
};
const HOW = {
  replace: "Choose one of your cards to replace with the held card.",
  exchange: "Choose the cards to exchange for the held card, then confirm.",
  peek: "Choose the card to look at.", swap: "Choose the two cards to swap.",
  give: "Choose your card to give and the empty place it goes to.",
  snap: "Choose the card that matches the top discard.",
  "opening-peek": "Choose the cards to look at.", "re-peek": "Choose the cards to look at again.",
};
/** Events that show the acting seat grid cards (a reveal the player hides). */
const REVEALS = new Set(["opening-peek", "re-peek", "peek", "swap"]);
/** Events that put another card at their positions (what was seen there is gone). */
const MOVES = new Set(["replace", "swap", "snap", "wrong-snap", "give", "exchange",
  "failed-exchange", "penalty"]);
/** Events whose positions are highlighted for a moment on every page. */
const TOUCHES = new Set([...MOVES, "peek"]);
const END_REASONS = { call: "Cambio was called", stock: "the stock ran out",
  "empty-grid": "a grid was emptied", "turn-cap": "the turn limit was reached" };

/** A server refusal as a sentence for people (never a field path or a seat code). */
function plainMessage(reply, names) {
  const words = {
    "stale-action": "The table moved on before your move arrived; look again and choose.",
    "illegal-action": "That move is not allowed now.",
    "wrong-seat": "That move belongs to another player.",
    "round-over": "The round is over: start the next round first.",
    "match-over": "The match is over.",
    "match-running": "The match is still being played.",
    "not-between-rounds": "The round is still being played.",
    "rate-limited": "Too many requests at once: wait a moment and try again.",
    "unauthorized": "This link opens no seat.", "expired-token": "This table has expired.",
  };
  if (words[reply.code]) return words[reply.code];
  let text = String(reply.message || "something went wrong");
  const who = (n) => (names && names[Number(n)]) || `player ${Number(n) + 1}`;
  text = text.replace(/\bP(\d+):(\d+)\b/g, (_, o, p) => `${who(o)}'s card ${p}`)
    .replace(/\bP(\d+)\b/g, (_, o) => who(o))
    .replace(/\(?\bat \$[.\w[\]]*\)?/g, "").replace(/\$[.\w[\]]+/g, "").trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function hiddenKey(token) { return `cambio-hidden:${token}`; }

class TableClient {
  constructor(token, watching) {
    this.token = token;
    this.watching = watching;
    this.view = null;
    this.legal = [];
    this.events = new Map();
    this.mode = null;
    this.selection = [];
    this.socket = null;
    this.delay = 500;
    this.stopped = false;
    this.nextId = 1;
    this.layout = null;
    this.movesOpen = false;
    this.hint = null;  // the analysis reply of the position on show, once it came
    this.hintAsked = null;  // the id of the analyse request still waiting for its reply
    this.hintDropped = new Set();  // ids of analyse requests whose position is gone
    this.moved = new Map();  // "owner:position" -> the event that last changed it
    this.flashed = new Set();  // the changes already highlighted on this page
    let stored = -1;
    try { stored = Number(localStorage.getItem(hiddenKey(token)) ?? -1); } catch { stored = -1; }
    this.hiddenUpTo = Number.isFinite(stored) ? stored : -1;
    this.connect();
  }

  connect() {
    if (this.stopped) return;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws?token=${encodeURIComponent(this.token)}`);
    this.socket = socket;
    statusLine.textContent = this.view ? "Reconnecting\u2026" : "Connecting\u2026";
    socket.addEventListener("open", () => {
      this.delay = 500;
      this.events.clear();  // the server sends the whole history again
    });
    socket.addEventListener("message", (message) => this.receive(JSON.parse(message.data)));
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket || this.stopped) return;
      if (event.code === 4401 || event.code === 4403) {
        this.stopped = true;
        statusLine.textContent = "This link opens no seat.";
        return;
      }
      statusLine.textContent = "Connection lost; reconnecting\u2026";
      document.body.dataset.connected = "false";
      setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(5000, this.delay * 2);
    });
  }

  stop() {
    this.stopped = true;
    if (this.socket) this.socket.close();
  }

  receive(message) {
    if (message.type === "update") {
      const old = this.view;
      if (old && message.view.at < old.at) {  // a rematch: a new match, a new log
        this.events.clear();
        this.setHidden(-1);
      }
      for (const event of message.events) this.events.set(event.index, event);
      const changed = !old || old.at !== message.view.at ||
        old.round !== message.view.round || old.between_rounds !== message.view.between_rounds;
      this.view = message.view;
      this.legal = message.legal;
      if (changed) {
        this.mode = null;
        this.selection = [];
        this.dropHint();
      }
      document.body.dataset.connected = "true";
      this.render();
    } else if (message.type === "analysis") {
      if (message.reply_to !== this.hintAsked) return;  // a hint of a position gone
      this.hintAsked = null;
      if (this.view && message.at === this.view.at) this.hint = message;
      this.render("hint");
    } else if (message.type === "error") {
      if (this.hintDropped.has(message.reply_to)) {  // the position moved on: no matter
        this.hintDropped.delete(message.reply_to);
        return;
      }
      if (message.reply_to !== undefined && message.reply_to === this.hintAsked) {
        this.hintAsked = null;
        this.render();
      }
      showError(plainMessage(message, this.view && this.view.names));
      if (message.code === "unauthorized" || message.code === "expired-token") {
        this.stopped = true;
        statusLine.textContent = "This link opens no seat.";
      }
    }
  }

  send(request) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) {
      showError("Not connected: the move was not sent. Reconnecting\u2026");
      return false;
    }
    this.socket.send(JSON.stringify({ ...request, id: this.nextId++ }));
    return true;
  }

  // -- hints: the analysis of the decision on show --------------------------------------
  /** Whether this page may ask for a hint now: a table with hints, and a decision of ours. */
  mayHint() {
    const v = this.view;
    return Boolean(v.hints) && v.seat !== null && !v.result && !v.between_rounds &&
      !v.match_over && this.legal.length > 0 && !this.reveal();
  }

  /** Send the analyse request for the position on show. */
  askHint() {
    if (!this.mayHint() || this.hintAsked !== null) return;
    clearErrors();
    const id = this.nextId;
    if (this.send({ type: "analyse" })) {
      this.hintAsked = id;
      this.render("hint");
    }
  }

  /** Forget the hint and any hint still on its way: the position it was for is gone. */
  dropHint() {
    if (this.hintAsked !== null) this.hintDropped.add(this.hintAsked);
    this.hintAsked = null;
    this.hint = null;
  }

  /** The id of the action the hint ranks first (null: none, or letting a snap pass). */
  hintedId() {
    const best = this.hint && this.hint.estimates[0];
    return best && best.action ? best.action.id : null;
  }

  /** An estimate's action in the page's words (those of its buttons). */
  estimateWords(e) {
    if (!e.action) return "Let the chance to snap pass";
    const legal = this.legal.find((a) => a.id === e.action.id);
    return this.describe(legal || e.action);
  }

  /** The best few moves of the hint, with their chances, in a panel of the prompt. */
  hintBox() {
    if (!this.hint) return null;
    const pct = (x) => `${Math.round(100 * x)}%`;
    const pts = (x) => x.toFixed(1);
    const top = this.hint.estimates.slice(0, 3);
    return h("section", { class: "hint-box", id: "hint", "aria-label": "Hint",
      "aria-live": "polite" },
      h("p", {}, h("strong", {}, "Hint: "),
        `the best moves by ${this.hint.samples} rounds played out from what you know.`),
      h("ol", {}, top.map((e, i) => h("li", { class: i === 0 ? "best" : null,
        "data-action": e.action ? e.action.id : "none" },
        h("span", { class: "move" }, this.estimateWords(e)), ": ",
        `wins about ${pct(e.win)} (95% between ${pct(e.win_interval[0])} and ` +
        `${pct(e.win_interval[1])}), expected score ${pts(e.score)} ` +
        `(between ${pts(e.score_interval[0])} and ${pts(e.score_interval[1])})`))));
  }

  act(action) {
    clearErrors();
    this.mode = null;
    this.selection = [];
    this.send({ type: "act", action: action.id, at: this.view.at });
  }

  setHidden(index) {
    this.hiddenUpTo = index;
    try { localStorage.setItem(hiddenKey(this.token), String(index)); } catch { /* private mode */ }
  }

  // -- names and words ----------------------------------------------------------------
  /** "You" or the seat's name, to start a sentence. */
  name(seat) {
    if (seat === this.view.seat) return "You";
    return (this.view.names || [])[seat] || `Player ${seat + 1}`;
  }

  /** "you" or the seat's name, inside a sentence. */
  who(seat) { return seat === this.view.seat ? "you" : this.name(seat); }

  /** "your" or "Robin's". */
  whose(seat) { return seat === this.view.seat ? "your" : `${this.name(seat)}'s`; }

  /** "your card 2", "Robin's card 3". */
  cardAt([owner, position]) { return `${this.whose(owner)} card ${position}`; }

  /** Positions as words, grouped by owner; `actor`'s own are "their" cards:
   * "your cards 3 and 4", "their card 2 and your card 1". */
  cardsAt(positions, actor) {
    const groups = [];
    for (const [owner, position] of positions) {
      const last = groups[groups.length - 1];
      if (last && last.owner === owner) last.positions.push(position);
      else groups.push({ owner, positions: [position] });
    }
    return groups.map(({ owner, positions: list }) => {
      const whose = owner === this.view.seat ? "your"
        : owner === actor ? "their" : `${this.name(owner)}'s`;
      return list.length === 1 ? `${whose} card ${list[0]}`
        : `${whose} cards ${list.slice(0, -1).join(", ")} and ${list[list.length - 1]}`;
    }).join(" and ");
  }

  /** "Robin's", "Robin's or Alex's", "another player's": the players other than `seat`. */
  othersOf(seat) {
    const v = this.view;
    const others = [...Array(v.players).keys()].filter((s) => s !== seat &&
      (v.present[s] || []).length);
    if (!others.length) return "another player's";
    if (others.length > 2) return "another player's";
    return others.map((s) => (s === v.seat ? "yours" : `${this.name(s)}'s`)).join(" or ");
  }

  /** A power's step ("swap own-other (optional)") as what its actor may do. */
  stepWords(step, actor) {
    const [action, scope] = String(step).split(" ");
    const mine = actor === this.view.seat;
    const own = mine ? "your" : "their";
    const looked = mine ? "you looked at" : "they looked at";
    const others = this.othersOf(actor);
    if (action === "peek") {
      if (scope === "own") return `look at one of ${own} cards`;
      if (scope === "other") return `look at one of ${others} cards`;
      return "look at any card on the table";
    }
    const phrases = {
      "own-other": `swap one of ${own} cards with one of ${others}`,
      "any-two": "swap any two cards on the table",
      "peeked-pair": `swap the two cards ${looked}`,
      "peeked-any": `swap the card ${looked} with any other card`,
      "peeked-own": `swap the card ${looked} with one of ${own} cards`,
      "peeked-other": `swap the card ${looked} with one of ${others} cards`,
      "other-other": "swap two cards of two other players",
    };
    return phrases[scope] || "use the power";
  }

  /** A legal action as a sentence (buttons, the list of every move). */
  describe(a) {
    const cards = a.positions.map((p) => this.cardAt(p));
    const and = (list) => list.join(" and ");
    switch (a.kind) {
      case "replace": return `Put the held card in place of ${cards[0]}`;
      case "exchange": return `Exchange ${and(cards)} for the held card`;
      case "peek": return `Look at ${cards[0]}`;
      case "swap": return `Swap ${cards[0]} with ${cards[1]}`;
      case "give": return `Give ${cards[0]} to fill ${cards[1]}`;
      case "snap": return `Snap ${and(cards)}`;
      case "opening-peek": return `Look at ${and(cards)}`;
      case "re-peek": return cards.length ? `Look again at ${and(cards)}` : LABELS["re-peek"];
      case "discard": return this.discardWords();
      default: return LABELS[a.kind] || a.kind;
    }
  }

  discardWords() {
    const steps = this.view.discard_power;
    if (!steps || !steps.length) return LABELS.discard;
    return `${LABELS.discard}; its power follows: ` +
      steps.map((s) => this.stepWords(s, this.view.seat)).join(", then ");
  }

  // -- memory: what the table shows now ------------------------------------------------
  /** The events of the round on show, in order (a match's later rounds wait). */
  roundEvents() {
    const out = [];
    let round = 0;
    let previous = null;
    for (const event of [...this.events.values()].sort((a, b) => a.index - b.index)) {
      const repeated = previous && previous.kind === "round-start" && event.kind === "round-start" &&
        previous.note === event.note;
      previous = event;
      if (event.kind === "round-start" && !repeated) round += 1;
      if (round > this.view.round || repeated) continue;
      if (round === this.view.round) out.push(event);
    }
    return out;
  }

  /** The cards the table shows this seat now and has not hidden yet: {upTo, opening, at}. */
  reveal() {
    const v = this.view;
    if (v.seat === null || v.result || v.aids) return null;
    const events = this.roundEvents();
    const shown = new Map();
    let upTo = -1;
    let opening = false;
    for (const e of events) {
      if (e.index > this.hiddenUpTo && e.player === v.seat && REVEALS.has(e.kind) &&
          e.cards.some((c) => c !== null)) {
        for (const [o, p] of e.positions) shown.set(`${o}:${p}`, e.index);
        upTo = Math.max(upTo, e.index);
        opening = opening || e.kind === "opening-peek";
      } else if (MOVES.has(e.kind)) {
        for (const [o, p] of e.positions) {
          const key = `${o}:${p}`;
          if (shown.has(key) && shown.get(key) < e.index) shown.delete(key);
        }
      }
    }
    if (upTo < 0) return null;
    return { upTo, opening, at: shown };
  }

  /** Positions whose cards lie face up for everyone (a failed exchange turns its cards
   * face up where they are) until another card takes their place. */
  faceUp() {
    const open = new Set();
    for (const e of this.roundEvents()) {
      if (e.kind === "failed-exchange") {
        for (const [o, p] of e.positions) open.add(`${o}:${p}`);
      } else if (MOVES.has(e.kind)) {
        for (const [o, p] of e.positions) open.delete(`${o}:${p}`);
      }
    }
    return open;
  }

  /** The face this page shows at a grid position, or null (face down). */
  face(owner, index, reveal) {
    const v = this.view;
    const text = v.grids[owner][index];
    if (text === null || text === undefined) return null;
    if (v.aids || v.result || v.seat === null) return text;
    const key = `${owner}:${index + 1}`;
    if (this.open && this.open.has(key)) return text;
    return reveal && reveal.at.has(key) ? text : null;
  }

  hide() {
    const reveal = this.reveal();  // now, not when the button was drawn
    if (!reveal) return;
    clearErrors();
    this.setHidden(Math.max(this.hiddenUpTo, reveal.upTo));
    this.render("hide");
  }

  // -- what just moved ------------------------------------------------------------------
  /** Light up, for a moment, each position changed since this page last looked. */
  flash() {
    const still = matchMedia("(prefers-reduced-motion: reduce)").matches;
    for (const el of main.querySelectorAll(".card.touched")) {
      const mark = `${el.dataset.owner}:${el.dataset.pos}:${el.dataset.moved}`;
      if (this.flashed.has(mark)) continue;
      this.flashed.add(mark);
      const frames = still
        ? [{ outlineColor: "#ffd54a" }, { outlineColor: "#ffd54a", offset: 0.9 },
          { outlineColor: "rgba(255, 213, 74, 0)" }]
        : [{ outlineColor: "#ffd54a", transform: "scale(1.08)" },
          { outlineColor: "#ff8a50", transform: "scale(1)", offset: 0.3 },
          { outlineColor: "#ffd54a", offset: 0.8 }, { outlineColor: "rgba(255, 213, 74, 0)" }];
      el.animate(frames, { duration: 2600, easing: "ease-out" });
    }
  }

  /** The positions the moves of this turn and the one before changed: "o:p" -> the
   * event. Worked out from the log alone, so every page at the table agrees; the
   * highlight itself fades after a moment (style.css). */
  movedNow() {
    const events = this.roundEvents();
    const turns = events.filter((e) => e.kind === "turn").map((e) => e.index);
    const since = turns.length >= 2 ? turns[turns.length - 2] : -1;
    const moved = new Map();
    for (const e of events) {
      if (e.index <= since || !TOUCHES.has(e.kind)) continue;
      for (const [o, p] of e.positions) moved.set(`${o}:${p}`, e.index);
    }
    return moved;
  }

  // -- choosing actions -------------------------------------------------------------
  candidates() {
    if (!this.mode || this.reveal()) return [];
    const chosen = this.selection.map(([o, p]) => `${o}:${p}`);
    return this.legal.filter((a) => a.kind === this.mode && a.positions.length &&
      chosen.every((key) => a.positions.some(([o, p]) => `${o}:${p}` === key)));
  }

  exact() {
    return this.candidates().filter((a) => a.positions.length === this.selection.length);
  }

  pick(owner, position) {
    const at = this.selection.findIndex(([o, p]) => o === owner && p === position);
    if (at >= 0) this.selection.splice(at, 1);
    else this.selection.push([owner, position]);
    const candidates = this.candidates();
    const exact = this.exact();
    if (exact.length === 1 && candidates.length === 1) {
      this.act(exact[0]);
      return;
    }
    if (!candidates.length) this.selection = [];
    this.render(`card-${owner}-${position}`);
  }

  setMode(kind) {
    this.mode = this.mode === kind ? null : kind;
    this.selection = [];
    this.render(`mode-${kind}`);
  }

  // -- drawing ----------------------------------------------------------------------
  render(focusKey) {
    const active = focusKey || document.activeElement?.dataset?.key;
    const v = this.view;
    const positional = [...new Set(this.legal.filter((a) => a.positions.length).map((a) => a.kind))];
    if (this.mode && !positional.includes(this.mode)) { this.mode = null; this.selection = []; }
    if (!this.mode) {
      const own = positional.filter((k) => k !== "snap");
      if (own.length) this.mode = own[0];
    }
    const me = v.seat === null ? "" : v.names[v.seat];
    document.title = `Cambio: ${v.seat === null ? "watching" : me} at the ${v.rules} table`;
    const status = v.seat === null ? "Connected: watching" : `Connected: you play as ${me}`;
    if (statusLine.textContent !== status) statusLine.textContent = status;

    const order = [];
    for (let s = 0; s < v.players; s++) if (s !== v.seat) order.push(s);
    const others = order.filter((s) => v.present[s].length);
    const reveal = this.reveal();
    this.open = this.faceUp();
    this.moved = v.result ? new Map() : this.movedNow();
    const mine = v.seat !== null && v.present[v.seat].length ? this.seatBox(v.seat, reveal) : null;

    if (!this.layout) this.layout = this.skeleton();
    const { felt, result, match, moves } = this.layout;
    keepSame(felt, [
      this.summary(),
      h("div", { class: "players", "aria-label": "Other players" }, others.map((s) => this.seatBox(s, reveal))),
      this.centre(),
      this.prompt(positional, reveal),
      mine].filter(Boolean));
    keepSame(result, v.result ? [this.resultBox()] : []);
    keepSame(match, [this.matchBox()]);
    keepSame(moves, this.legal.length && !reveal ? [this.movesBox()] : []);
    this.updateLog();
    this.announce();
    this.flash();
    if (active) main.querySelector(`[data-key="${CSS.escape(active)}"]`)?.focus();
  }

  /** The parts of the page that stay put while the table redraws inside them. */
  skeleton() {
    // An arranged table (created with a seed or a prepared deck) says so to everyone.
    const notice = this.view.arranged ? h("p", { class: "notice", id: "arranged", role: "note" },
      h("strong", {}, "Arranged table: "),
      "its creator chose the deal, so the creator may know the cards.") : null;
    const layout = {
      felt: h("section", { class: "felt", "aria-label": "The table" }),
      result: h("div", { class: "holder" }),
      match: h("div", { class: "holder" }),
      list: h("ul", { role: "log", "aria-live": "polite", tabindex: 0, id: "log",
        "aria-label": "What happened" }),
      moves: h("div", { class: "holder" }),
      news: h("p", { class: "visually-hidden", "aria-live": "polite", id: "news" }),
      shown: [],
    };
    main.replaceChildren(...(notice ? [notice] : []), layout.felt,
      h("div", { class: "below" }, layout.result, layout.match,
        h("section", { class: "panel log" }, h("h2", {}, "What happened"), layout.list),
        layout.moves),
      layout.news);
    return layout;
  }

  logLines() {
    // Events in order, up to the end of the round on show (between rounds the match
    // has already dealt the next round; its events wait for "Start the next round").
    const lines = [];
    let round = 0;
    let previous = null;
    for (const event of [...this.events.values()].sort((a, b) => a.index - b.index)) {
      const repeated = previous && previous.kind === "round-start" && event.kind === "round-start" &&
        previous.note === event.note;
      previous = event;
      if (event.kind === "round-start" && !repeated) round += 1;
      if (round > this.view.round || repeated) continue;
      const text = this.narrate(event);
      if (text) lines.push({ key: `${event.index}:${text}`, text, round: event.kind === "round-start" });
    }
    return lines;
  }

  /** Add the new lines of the event log (the list is rebuilt only if its past changed). */
  updateLog() {
    const { list, shown } = this.layout;
    const lines = this.logLines();
    const keep = shown.length <= lines.length && shown.every((key, i) => key === lines[i].key);
    if (!keep) {
      list.replaceChildren();
      shown.length = 0;
    }
    for (const line of lines.slice(shown.length)) {
      list.append(h("li", { class: line.round ? "round" : null }, line.text));
      shown.push(line.key);
    }
    list.scrollTop = list.scrollHeight;
  }

  /** The latest line of the log, shown in the prompt so it is always in view. */
  latestLine() {
    const lines = this.logLines();
    return lines.length ? lines[lines.length - 1].text : "";
  }

  /** Say the big changes (your turn, the end of a round) to screen readers. */
  announce() {
    const v = this.view;
    let text = "";
    if (v.result) text = `Round ${v.round} is over.`;
    else if (v.to_act !== null && v.to_act === v.seat) text = "Your turn.";
    else if (this.legal.some((a) => a.kind === "snap")) text = "You may snap.";
    if (text !== this.layout.said) {
      this.layout.said = text;
      this.layout.news.textContent = text;
    }
  }

  summary() {
    const v = this.view;
    const turn = v.to_act === null ? (v.phase === "over" ? "the round is over" : "nobody")
      : v.to_act === v.seat ? "yours" : this.name(v.to_act);
    return h("div", { class: "summary", id: "summary" },
      h("span", {}, "Table: ", h("a", { href: `/rules/${encodeURIComponent(v.rules)}`,
        target: "_blank", rel: "noopener", id: "rules-link" }, `${v.rules} rules`)),
      h("span", {}, "Round ", h("strong", {}, v.round)),
      v.seat === null ? h("span", {}, h("strong", {}, "Watching")) :
        h("span", {}, "You are ", h("strong", { id: "my-name" }, v.names[v.seat])),
      h("span", { id: "turn" }, "Turn: ", h("strong", {}, turn)),
      h("span", { id: "aids-note" }, v.aids ? h("strong", {}, "Learner's aids on") :
        "Memory game: no aids"),
      v.hints ? h("span", { id: "hints-note" }, h("strong", {}, "Hints on")) : null,
      v.caller !== null ? h("span", {}, h("strong", {}, this.name(v.caller)), " called Cambio") : null);
  }

  /** The box where a person who has not chosen a name may type one. */
  nameForm() {
    const v = this.view;
    if (v.seat === null || v.names[v.seat] !== `Player ${v.seat + 1}`) return null;
    const input = h("input", { id: "name-input", type: "text", maxlength: 24,
      autocomplete: "nickname", "aria-label": "Your name", placeholder: "Your name" });
    const form = h("form", { class: "name-form", id: "name-form" },
      h("label", { for: "name-input" }, "Your name at this table: "), input,
      h("button", { type: "submit", "data-key": "name-save" }, "Use this name"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (!input.value.trim()) { showError("Type a name first."); return; }
      this.send({ type: "name", name: input.value });
    });
    return form;
  }

  seatBox(seat, reveal) {
    const v = this.view;
    const me = seat === v.seat;
    const turn = v.to_act === seat || (v.to_act === null && v.current === seat && v.phase !== "over");
    const present = v.present[seat];
    const cols = Math.max(1, Math.ceil(Math.sqrt(v.grid_size)));
    const base = [];
    const extra = [];
    for (let i = 0; i < present.length; i++) {
      const slot = this.slot(seat, i, reveal);
      if (i < v.grid_size) base.push(slot);
      else if (present[i]) extra.push(slot);
    }
    const title = me ? "Your cards" : `${this.name(seat)}${v.caller === seat ? ", who called" : ""}`;
    return h("section", { class: "seat" + (me ? " me" : "") + (turn ? " turn" : ""),
      "aria-label": title + (turn ? ", to play" : ""), "data-seat": seat },
      h("h3", {}, title, turn ? " \u2014 to play" : ""),
      h("div", { class: "grid", style: `--cols:${cols}` }, base),
      extra.length ? h("div", { class: "extra-label" }, "Penalty and extra cards") : null,
      extra.length ? h("div", { class: "extra" }, extra) : null);
  }

  slot(owner, index, reveal) {
    const v = this.view;
    const position = index + 1;
    const here = v.present[owner][index];
    const whose = owner === v.seat ? "Your" : `${this.name(owner)}'s`;
    const key = `card-${owner}-${position}`;
    const moved = this.moved.get(`${owner}:${position}`);
    const touched = moved !== undefined;
    if (!here) {
      return h("div", { class: "slot" },
        this.cardButton(owner, position, key, "card empty" + (touched ? " touched" : ""),
          `${whose} card ${position}: empty` + (touched ? "; just changed" : ""), "", moved),
        h("div", { class: "seen" }));
    }
    const text = this.face(owner, index, reveal);
    const info = cardInfo(text);
    // who else saw the card is a learner's aid: it follows the card through swaps
    const seenBy = v.aids ? (((v.known_by || [])[owner] || [])[index] || []) : [];
    const label = `${whose} card ${position}: ` + (info ? info.label : "face down") +
      (seenBy.length ? `; seen by ${seenBy.map((s) => this.who(s)).join(", ")}` : "") +
      (touched ? "; just changed" : "");
    const cls = "card " + (info ? "up" + (info.red ? " red" : "") : "down") + (touched ? " touched" : "");
    return h("div", { class: "slot" },
      this.cardButton(owner, position, key, cls, label, info ? info.face : "", moved),
      v.aids ? h("div", { class: "seen", "aria-hidden": "true" },
        seenBy.length ? "seen: " + seenBy.map((s) => this.who(s)).join(", ") : "") : null);
  }

  cardButton(owner, position, key, cls, label, face, moved) {
    const targets = new Set();
    for (const a of this.candidates()) for (const [o, p] of a.positions) targets.add(`${o}:${p}`);
    const selected = this.selection.some(([o, p]) => o === owner && p === position);
    const target = targets.has(`${owner}:${position}`);
    const hinted = this.hintedId();
    const best = hinted === null ? null : this.legal.find((a) => a.id === hinted);
    const mark = best && best.positions.some(([o, p]) => o === owner && p === position);
    return h("button", {
      type: "button", class: cls + (target ? " target" : "") + (selected ? " selected" : "") +
        (mark ? " hinted" : ""),
      "aria-label": label, "aria-pressed": selected ? "true" : null,
      "data-key": key, "data-owner": owner, "data-pos": position, "data-moved": moved,
      disabled: !(target || selected),
      onclick: () => this.pick(owner, position),
    }, h("span", { class: "pos", "aria-hidden": "true" }, position), face);
  }

  centre() {
    const v = this.view;
    const top = cardInfo(v.discard_top);
    const stock = h("div", { class: "pile", id: "stock" },
      h("div", { class: "card down", role: "img", "aria-label": `Stock: ${v.stock_size} cards` }),
      `Stock ${v.stock_size}`);
    const discard = h("div", { class: "pile", id: "discard" },
      h("div", { class: "card " + (top ? "up" + (top.red ? " red" : "") : "empty"), role: "img",
        "aria-label": top ? `Top discard: ${top.label}, ${v.discard_size} cards in the pile`
          : "The discard pile is empty" }, top ? top.face : ""),
      `Discard ${v.discard_size}`);
    let held = null;
    if (v.holding_from_stock !== null && v.phase !== "over") {
      const card = cardInfo(v.holding);
      const who = v.current === v.seat ? "You hold" : `${this.name(v.current)} holds`;
      const what = card ? card.label : "a card you have not seen";
      held = h("div", { class: "pile", id: "held" },
        h("div", { class: "card " + (card ? "up" + (card.red ? " red" : "") : "down"), role: "img",
          "aria-label": `${who} ${what}` }, card ? card.face : ""),
        `${who}`);
    }
    const power = v.power_step ? h("div", { class: "power", id: "power" },
      v.current === v.seat ? "Your power: " : `${this.name(v.current)}'s power: `,
      this.stepWords(v.power_step, v.current), v.power_step.includes("(optional)") ? " (or skip it)" : "") : null;
    return h("div", { class: "centre", "aria-label": "Stock, discard pile and held card" },
      stock, discard, held, power);
  }

  prompt(positional, reveal) {
    const v = this.view;
    const lines = [];
    const buttons = [];
    const latest = this.latestLine();
    const tail = [];
    if (reveal) {
      const cards = [...reveal.at.keys()].map((k) => k.split(":").map(Number));
      const list = cards.length ? this.cardsAt(cards, v.seat) : "the cards you saw";
      lines.push(reveal.opening
        ? `Remember ${list}: they turn face down when you hide them.`
        : `Remember ${list}, then hide ${cards.length === 1 ? "it" : "them"}.`);
      buttons.push(h("button", { type: "button", class: "primary", id: "hide-cards", "data-key": "hide",
        onclick: () => this.hide() }, reveal.opening ? "Hide cards & begin" : "Hide the card" + (cards.length > 1 ? "s" : "")));
    } else if (v.seat === null) {
      lines.push("You are watching: you see only what every player sees.");
    } else if (v.match_over) {
      lines.push(this.matchWords());
      buttons.push(h("button", { type: "button", class: "primary", "data-key": "rematch", id: "rematch",
        onclick: () => this.send({ type: "rematch" }) }, "Rematch"));
    } else if (v.between_rounds) {
      lines.push("The round is over. Anyone at the table may start the next round.");
      buttons.push(h("button", { type: "button", class: "primary", "data-key": "next-round",
        id: "next-round", onclick: () => this.send({ type: "next-round" }) }, "Start the next round"));
    } else if (v.to_act === v.seat) {
      if (v.phase === "opening") lines.push("Choose the cards you look at before play.");
      else if (v.power_step) lines.push(`Your power: ${this.stepWords(v.power_step, v.seat)}` +
        (v.power_step.includes("(optional)") || this.legal.some((a) => a.kind === "skip") ? ", or skip it." : "."));
      else if (v.holding) lines.push(`You hold ${withArticle(cardInfo(v.holding))}: put it in place of one of your cards, or discard it.`);
      else lines.push("Your turn.");
    } else if (v.to_act !== null) {
      lines.push(`Waiting for ${this.name(v.to_act)}.`);
    }
    if (v.result || v.match_over) {
      tail.push(h("a", { href: "/", class: "button-link", id: "new-table", "data-key": "new-table" }, "New table"));
    }
    if (!reveal) {
      const snaps = this.legal.filter((a) => a.kind === "snap");
      if (snaps.length) lines.push("Snap a card that matches the top discard, if you dare.");
      if (this.mode && HOW[this.mode]) lines.push(this.howWords());
      const hinted = this.hintedId();
      const best = hinted === null ? null : this.legal.find((a) => a.id === hinted);
      for (const a of this.legal.filter((x) => !x.positions.length)) {
        const cls = [a.kind === "discard" && v.discard_power ? "with-power" : "",
          a === best ? "hinted" : ""].filter(Boolean).join(" ");
        buttons.push(h("button", { type: "button", "data-key": `act-${a.kind}`, "data-kind": a.kind,
          class: cls || null, onclick: () => this.act(a) }, this.describe(a)));
      }
      for (const kind of positional) {
        const pressed = this.mode === kind;
        const mark = best && best.positions.length && best.kind === kind ? " hinted" : "";
        buttons.push(h("button", { type: "button", class: "mode" + (kind === "snap" ? " snap" : "") + mark,
          "aria-pressed": String(pressed), "data-key": `mode-${kind}`, "data-kind": kind,
          id: kind === "snap" ? "snap-button" : null,
          onclick: () => this.setMode(kind) }, LABELS[kind] || kind));
      }
      const exact = this.exact();
      if (exact.length && this.candidates().length > 1) {
        for (const a of exact) {
          buttons.push(h("button", { type: "button", class: "primary", "data-key": `confirm-${a.id}`,
            onclick: () => this.act(a) }, `Confirm: ${this.describe(a)}`));
        }
      }
      if (this.mayHint()) {
        const waiting = this.hintAsked !== null;
        buttons.push(h("button", { type: "button", id: "hint-button", "data-key": "hint",
          class: "hint-button", disabled: waiting, "aria-busy": waiting ? "true" : null,
          onclick: () => this.askHint() }, waiting ? "Thinking\u2026" : "Hint"));
      }
    }
    return h("section", { class: "prompt", id: "prompt", "aria-label": "Your move" },
      latest ? h("p", { class: "latest", id: "latest" }, h("span", { class: "latest-label" }, "Last: "), latest) : null,
      this.nameForm(),
      lines.map((l) => h("p", {}, l)), h("div", { class: "actions" }, buttons, tail),
      reveal ? null : this.hintBox());
  }

  /** What to choose now, with the players' names ("one of your cards, then one of Robin's"). */
  howWords() {
    const v = this.view;
    if (this.mode === "swap" && v.power_step && this.selection.length === 1) {
      const [o] = this.selection[0];
      const rest = new Set();
      for (const a of this.candidates()) for (const [p] of a.positions) if (p !== o) rest.add(p);
      const names = [...rest].map((s) => (s === v.seat ? "yours" : `${this.name(s)}'s`));
      return `Now choose one of ${names.join(" or ") || "the other"} cards to swap with ${this.cardAt(this.selection[0])}.`;
    }
    if (this.mode === "swap" && v.power_step) {
      return `${this.stepWords(v.power_step, v.seat).replace(/^swap/, "Choose the cards to swap:")}.`;
    }
    return HOW[this.mode];
  }

  matchWords() {
    const m = this.view.match;
    const names = m.winners.map((s) => this.name(s));
    if (!names.length) return "The match is over.";
    const you = m.winners.includes(this.view.seat);
    if (names.length === 1) return you ? "You win the match!" : `${names[0]} wins the match.`;
    return `${names.join(" and ")} share the match.`;
  }

  resultBox() {
    const v = this.view;
    const r = v.result;
    const rows = r.seats.map((seat, i) => h("tr", { "data-seat": seat },
      h("th", { scope: "row" }, this.name(seat)),
      h("td", {}, h("span", { class: "hand" },
        r.hands[i].map((c) => h("span", {}, `card ${c.position}: `, miniCard(c.card), ` ${c.value}`)))),
      h("td", {}, r.totals[i]), h("td", {}, r.scores[i]),
      h("td", {}, [r.caller === seat ? "called" : "", r.winners.includes(seat) ? "lowest" : ""]
        .filter(Boolean).join(", "))));
    const winners = r.winners.map((s) => this.name(s));
    const lowest = !winners.length ? "Nobody is lowest." : winners.length === 1
      ? (r.winners[0] === v.seat ? "You are lowest." : `${winners[0]} is lowest.`)
      : `${winners.join(" and ")} share the lowest total.`;
    return h("section", { class: "result", id: "result", "aria-label": "Round result" },
      h("h2", {}, `Round ${v.round} is over: ${END_REASONS[r.reason] || "the round ended"}`),
      h("p", {}, lowest),
      h("table", { class: "scores" },
        h("thead", {}, h("tr", {}, ["Player", "Cards", "Total", "Score", ""].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, rows)));
  }

  matchBox() {
    const v = this.view;
    const m = v.match;
    const seats = [...Array(v.players).keys()];
    const head = h("tr", {}, h("th", { scope: "col" }, "Round"),
      seats.map((s) => h("th", { scope: "col" }, this.name(s))));
    const rows = m.rounds.map((r) => h("tr", {}, h("th", { scope: "row" }, r.number),
      seats.map((s) => h("td", {}, r.scores[s] ?? ""))));
    const totals = h("tr", {}, h("th", { scope: "row" }, "Total"), seats.map((s) => h("td", {}, m.totals[s] ?? "")));
    const over = m.over ? h("p", { id: "match-over" }, this.matchWords()) : null;
    return h("section", { class: "panel", id: "match", "aria-label": "Match scores" },
      h("h2", {}, "Match"), over,
      h("table", { class: "scores" }, h("thead", {}, head), h("tbody", {}, rows, totals)));
  }

  movesBox() {
    return h("section", { class: "panel" }, h("details", { class: "moves", open: this.movesOpen,
      ontoggle: (event) => { this.movesOpen = event.target.open; } },
      h("summary", { "data-key": "moves" }, `Every move you can make (${this.legal.length})`),
      h("div", { class: "actions" }, this.legal.map((a) => h("button", { type: "button",
        "data-key": `move-${a.id}`, class: a.id === this.hintedId() ? "hinted" : null,
        onclick: () => this.act(a) }, this.describe(a))))));
  }

  narrate(e) {
    const v = this.view;
    const who = this.name(e.player);
    const me = e.player === v.seat;
    const memory = !v.aids && v.seat !== null;
    // the cards a line may name: public ones always; private ones only with aids
    const named = (c) => (c === null ? "a hidden card" : cardInfo(c).face);
    const cards = e.cards.map(named);
    const where = this.cardsAt(e.positions, e.player);
    const privately = memory && e.cards.some((c) => c !== null);
    switch (e.kind) {
      case "round-start": return `Round ${e.note.replace(/^round /, "")}`;
      case "dealer": return null;
      case "deal": return cards.length ? `The cards are dealt; ${cards[0]} starts the discard pile.` : "The cards are dealt.";
      case "opening-peek": case "re-peek":
        return `${who} looked at ${where}` + (e.cards.some((c) => c !== null) && !memory ? `: ${cards.join(", ")}.` : ".");
      case "turn": return null;
      case "draw": return `${who} drew ${e.cards[0] && !memory ? cards[0] : "a card from the stock"}.`;
      case "take": return `${who} took ${cards[0]} from the discard pile.`;
      case "replace": return `${who} replaced ${where}; out came ${cards[0]}.`;
      case "discard": return `${who} discarded ${cards[0]}.`;
      case "exchange": return `${who} exchanged ${where} (${cards.join(" ")}).`;
      case "failed-exchange": return `${who} tried an exchange that failed (${cards.join(" ")}).`;
      case "power": return `${who} ${me ? "use" : "uses"} the power of ${cards[0] || "the card"}.`;
      case "peek": return `${who} looked at ${where}` + (e.cards[0] && !memory ? `: ${cards[0]}.` : ".");
      case "swap": return `${who} swapped ${where}` + (e.cards.some((c) => c !== null) && !privately ? ` (${cards.join(", ")}).` : ".");
      case "skip": return `${who} skipped the power.`;
      case "snap": return `${who} snapped ${where}: ${cards.join(" ")}!`;
      case "wrong-snap": return `${who} snapped ${where} wrongly (${cards.join(" ")}).`;
      case "penalty": return e.positions.length ? `${who} took a penalty card as ${where}.` : `${who} owed a penalty card; the stock is empty.`;
      case "give": return `${who} gave ${this.cardsAt([e.positions[0]], e.player)} to fill ${this.cardsAt([e.positions[1]], e.player)}.`;
      case "call": return `${who} called Cambio!`;
      case "pass": return `${who} ended the turn.`;
      case "recycle": return "The discard pile became the new stock.";
      case "end": return null;
      case "round-end": return `Round ${e.note.replace(/^round (\d+).*$/, "$1")} is over: ${END_REASONS[e.note.replace(/^round \d+: /, "")] || "the round ended"}.`;
      case "halved": return `${who} landed exactly on the limit: the total is halved.`;
      case "out": return `${who} ${me ? "are" : "is"} out of the match.`;
      case "tie": return "A tie: an extra round decides.";
      case "match-end": return this.view.match.over ? this.matchWords() : "The match is over.";
      case "high-card": return null;
      default: return null;
    }
  }
}

// ------------------------------------------------------------------------------------
// Routing

let current = null;

function route() {
  clearErrors();
  if (current) { current.stop(); current = null; }
  const hash = new URLSearchParams(location.hash.slice(1));
  const join = hash.get("join");
  const watch = hash.get("watch");
  if (join || watch) {
    main.replaceChildren(h("p", {}, "Connecting to the table\u2026"));
    current = new TableClient(join || watch, !join);
    window.cambioTable = current;
  } else {
    showCreate();
  }
}

window.addEventListener("hashchange", route);
route();
