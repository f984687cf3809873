// The guided lessons in the browser: a plain JavaScript module, no build step.
//
// It lists the lessons (GET /api/lessons), starts one (POST /api/lessons) and sends
// each click as one of the legal actions the server listed (POST /api/lessons/RUN).
// It draws only what a reply holds: the learner's view, the step's prompt and what the
// step shows. Cards are face down once the learner hides them; only a look that has
// not been hidden yet, and the cards a step shows, are drawn face up.

const SUITS = { S: ["\u2660", "spades", false], H: ["\u2665", "hearts", true],
  D: ["\u2666", "diamonds", true], C: ["\u2663", "clubs", false] };
const RANKS = { A: "ace", J: "jack", Q: "queen", K: "king" };
/** Events that show the learner grid cards until they hide them. */
const LOOKS = new Set(["opening-peek", "re-peek", "peek", "swap"]);
/** Events that put another card at their positions. */
const MOVES = new Set(["replace", "swap", "snap", "wrong-snap", "give", "exchange",
  "failed-exchange", "penalty"]);

const main = document.getElementById("main");
const statusLine = document.getElementById("status");
const errors = document.getElementById("errors");

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

function showError(message) {
  errors.replaceChildren(h("div", { class: "error" }, h("span", {}, message)));
}

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

/** A refusal from the server as a sentence (never a field path). */
function plain(reply) {
  const words = {
    unauthorized: "This lesson has expired: start it again.",
    "stale-action": "The lesson moved on: look again and choose.",
    "round-over": "This lesson is over.",
    "rate-limited": "Too many lessons at once: finish one first.",
    "too-many-tables": "The server is busy: try again in a moment.",
  };
  return words[reply.code] || String(reply.message || "Something went wrong.")
    .replace(/\(?\bat \$[.\w[\]]*\)?/g, "").replace(/\$[.\w[\]]+/g, "").trim();
}

async function post(path, body) {
  const response = await fetch(path, { method: "POST",
    headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return response.json();
}

// ------------------------------------------------------------------------------------
// The list of lessons

async function showList() {
  document.title = "Cambio: learn to play";
  statusLine.textContent = "Learn to play in three short lessons.";
  let data;
  try {
    data = await (await fetch("/api/lessons")).json();
  } catch (error) {
    showError(`Cannot reach the server: ${error}`);
    return;
  }
  const items = data.lessons.map((lesson) => h("li", {},
    h("div", {}, h("h3", {}, `Lesson ${lesson.number}: ${lesson.title}`), h("p", {}, lesson.summary)),
    h("button", { type: "button", class: "primary", id: `start-${lesson.number}`,
      onclick: () => start(lesson.number) }, `Start lesson ${lesson.number}`)));
  main.replaceChildren(h("section", { class: "panel", id: "lessons" },
    h("h2", {}, "Three guided lessons"),
    h("p", { class: "hint" }, "Each lesson deals prepared cards on the practice table against " +
      "Robin and Alex and tells you what to do. You play from memory: once you hide your " +
      "cards they lie face down, and only their position numbers stay."),
    h("ol", { class: "lesson-list" }, items),
    h("p", {}, h("a", { href: "/" }, "Back to the tables"))));
}

async function start(number) {
  errors.replaceChildren();
  let reply;
  try {
    reply = await post("/api/lessons", { lesson: number });
  } catch (error) {
    showError(`Cannot reach the server: ${error}`);
    return;
  }
  if (reply.type === "error") { showError(plain(reply)); return; }
  new Lesson(reply);
}

// ------------------------------------------------------------------------------------
// One lesson

class Lesson {
  constructor(state) {
    this.log = [];
    this.selection = [];
    this.said = null;  // {ok, message} of the last attempt
    this.busy = false;
    window.cambioLesson = this;  // what the page holds, for its tests
    this.update(state);
  }

  update(state) {
    this.state = state;
    this.look = null;
    for (const event of state.events) {
      if (event.text) this.log.push(event.text);
      const cards = event.cards.some((c) => c !== null);
      if (event.player === 0 && LOOKS.has(event.kind) && cards) {
        this.look = this.look || { opening: event.kind === "opening-peek", at: new Map() };
        event.positions.forEach(([o, p], i) => {
          if (event.cards[i] !== null) this.look.at.set(`${o}:${p}`, event.cards[i]);
        });
      } else if (this.look && MOVES.has(event.kind)) {
        for (const [o, p] of event.positions) this.look.at.delete(`${o}:${p}`);
      }
    }
    if (this.look && !this.look.at.size) this.look = null;
    this.selection = [];
    this.render();
  }

  name(seat) { return seat === 0 ? "You" : this.state.view.names[seat]; }
  whose(seat) { return seat === 0 ? "Your" : `${this.state.view.names[seat]}'s`; }

  async act(action) {
    if (this.busy) return;
    this.busy = true;
    errors.replaceChildren();
    let reply;
    try {
      reply = await post(`/api/lessons/${encodeURIComponent(this.state.run)}`,
        { action: action.id, step: this.state.step });
    } catch (error) {
      showError(`Cannot reach the server: ${error}`);
      return;
    } finally {
      this.busy = false;
    }
    if (reply.type === "error") { showError(plain(reply)); return; }
    this.said = reply.feedback;
    this.update(reply);
  }

  hide() {
    this.look = null;
    this.render();
  }

  // -- choosing a card ---------------------------------------------------------------
  candidates() {
    if (this.look) return [];
    const chosen = this.selection.map(([o, p]) => `${o}:${p}`);
    return this.state.legal.filter((a) => a.positions.length &&
      chosen.every((key) => a.positions.some(([o, p]) => `${o}:${p}` === key)));
  }

  pick(owner, position) {
    const at = this.selection.findIndex(([o, p]) => o === owner && p === position);
    if (at >= 0) this.selection.splice(at, 1);
    else this.selection.push([owner, position]);
    const candidates = this.candidates();
    const exact = candidates.filter((a) => a.positions.length === this.selection.length);
    if (exact.length === 1) { this.act(exact[0]); return; }
    if (!candidates.length) this.selection = [];
    this.render();
  }

  // -- drawing -----------------------------------------------------------------------
  face(owner, position) {
    const key = `${owner}:${position}`;
    const result = this.state.result;
    if (result) {  // the round is over: every hand is shown to everyone
      const card = (result.hands[owner] || []).find((c) => c.position === position);
      if (card) return card.card;
    }
    if (this.look && this.look.at.has(key)) return this.look.at.get(key);
    if (owner === 0 && !this.look) {
      const shown = this.state.shown.find((s) => s.position === position);
      if (shown) return shown.card;
    }
    return null;
  }

  render() {
    const s = this.state;
    const v = s.view;
    document.title = `Cambio: lesson ${s.lesson.number}, ${s.lesson.title}`;
    statusLine.textContent = `Lesson ${s.lesson.number} of ${s.lessons}: ${s.lesson.title}`;
    const others = [...Array(v.players).keys()].filter((x) => x !== 0);
    main.replaceChildren(
      this.coach(),
      h("section", { class: "felt", "aria-label": "The table" },
        h("div", { class: "players", "aria-label": "Robin and Alex" }, others.map((x) => this.seat(x))),
        this.centre(),
        this.seat(0),
        this.log.length ? h("p", { class: "lesson-log", id: "latest" }, this.log[this.log.length - 1]) : null));
  }

  coach() {
    const s = this.state;
    const parts = [h("h2", {}, `Lesson ${s.lesson.number}: ${s.lesson.title}`)];
    if (this.look) {
      const where = [...this.look.at.keys()].map((k) => {
        const [o, p] = k.split(":").map(Number);
        return `${o === 0 ? "your" : this.whose(o)} card ${p}`;
      }).join(" and ");
      parts.push(h("p", { class: "say", id: "prompt" }, this.look.opening
        ? `These are ${where}. Remember them: they turn face down when you hide them.`
        : `You see ${where}. Remember it, then hide it.`));
      if (this.said && this.said.ok && this.said.message) {
        parts.push(h("p", { class: "done", id: "done" }, this.said.message));
      }
      parts.push(h("div", { class: "actions" }, h("button", { type: "button", class: "primary",
        id: "hide-cards", onclick: () => this.hide() },
      this.look.opening ? "Hide cards & begin" : "Hide the card")));
      return h("section", { class: "coach", "aria-live": "polite" }, parts);
    }
    if (!s.finished) parts.push(h("p", { class: "step" }, `Step ${s.step} of ${s.lesson.steps}`));
    if (this.said && this.said.ok && this.said.message) {
      parts.push(h("p", { class: "done", id: "done" }, this.said.message));
    }
    parts.push(h("p", { class: "say", id: "prompt" }, s.prompt));
    if (s.shown.length) {
      parts.push(h("p", { class: "shown-once", id: "shown" }, "Shown by this lesson, once: ",
        s.shown.map((c) => {
          const info = cardInfo(c.card);
          return h("span", { class: "mini" + (info.red ? " red" : ""), "aria-label":
            `card ${c.position}: ${info.label}` }, `${c.position}: ${info.face}`);
        })));
    }
    if (this.said && !this.said.ok) {
      parts.push(h("p", { class: "wrong", id: "wrong", role: "alert" }, this.said.message));
    }
    const buttons = s.legal.filter((a) => !a.positions.length).map((a) => h("button", {
      type: "button", "data-kind": a.kind, class: "act", onclick: () => this.act(a) }, a.text));
    if (s.legal.some((a) => a.positions.length)) {
      parts.push(h("p", { class: "hint" }, this.selection.length
        ? "Now choose the other card." : "Click a card to choose it."));
    }
    if (s.finished) {
      if (s.result) {
        const totals = s.result.totals.map((t, i) => `${this.name(i)} ${t}`).join(", ");
        const won = s.result.winners.map((w) => this.name(w)).join(" and ");
        parts.push(h("p", { class: "result-line", id: "result" },
          `Totals: ${totals}. ${won} ${s.result.winners.length === 1 && s.result.winners[0] !== 0 ? "wins" : "win"}.`));
      }
      if (s.lesson.number < s.lessons) {
        buttons.push(h("button", { type: "button", class: "primary", id: "next-lesson",
          onclick: () => start(s.lesson.number + 1) }, `Lesson ${s.lesson.number + 1}`));
      } else {
        buttons.push(h("button", { type: "button", class: "primary", id: "fresh-round",
          onclick: () => freshRound() }, "Play a fresh round against Robin and Alex"));
      }
      buttons.push(h("button", { type: "button", id: "back", onclick: () => showList() },
        "All lessons"));
    }
    if (buttons.length) parts.push(h("div", { class: "actions" }, buttons));
    return h("section", { class: "coach", "aria-live": "polite" }, parts);
  }

  seat(seat) {
    const v = this.state.view;
    const me = seat === 0;
    const turn = !this.state.finished && v.to_act === seat;  // a finished lesson waits on nobody
    const cols = Math.max(1, Math.ceil(Math.sqrt(v.grid_size)));
    const slots = [];
    v.present[seat].forEach((here, i) => {
      if (i < v.grid_size || here) slots.push(this.slot(seat, i + 1, here));
    });
    const title = me ? "Your cards" : this.name(seat) + (v.caller === seat ? ", who called" : "");
    return h("section", { class: "seat" + (me ? " me" : "") + (turn ? " turn" : ""),
      "aria-label": title, "data-seat": seat },
    h("h3", {}, title, turn ? " \u2014 to play" : ""),
    h("div", { class: "grid", style: `--cols:${cols}` }, slots));
  }

  slot(owner, position, here) {
    const targets = new Set();
    for (const a of this.candidates()) for (const [o, p] of a.positions) targets.add(`${o}:${p}`);
    const key = `${owner}:${position}`;
    const selected = this.selection.some(([o, p]) => o === owner && p === position);
    const info = here ? cardInfo(this.face(owner, position)) : null;
    const whose = this.whose(owner);
    const label = `${whose} card ${position}: ` + (!here ? "empty" : info ? info.label : "face down");
    const cls = "card " + (!here ? "empty" : info ? "up" + (info.red ? " red" : "") : "down") +
      (targets.has(key) ? " target" : "") + (selected ? " selected" : "");
    return h("div", { class: "slot" }, h("button", {
      type: "button", class: cls, "aria-label": label, "data-owner": owner, "data-pos": position,
      "aria-pressed": selected ? "true" : null, disabled: !(targets.has(key) || selected),
      onclick: () => this.pick(owner, position),
    }, h("span", { class: "pos", "aria-hidden": "true" }, position), info ? info.face : ""));
  }

  centre() {
    const v = this.state.view;
    const top = cardInfo(v.discard_top);
    const parts = [
      h("div", { class: "pile", id: "stock" }, h("div", { class: "card down", role: "img",
        "aria-label": `Stock: ${v.stock_size} cards` }), `Stock ${v.stock_size}`),
      h("div", { class: "pile", id: "discard" }, h("div", { class: "card " + (top ? "up" +
        (top.red ? " red" : "") : "empty"), role: "img", "aria-label": top
        ? `Top discard: ${top.label}` : "The discard pile is empty" }, top ? top.face : ""),
      `Discard ${v.discard_size}`),
    ];
    if (v.holding_from_stock !== null && v.phase !== "over") {
      const card = cardInfo(v.holding);
      const who = v.current === 0 ? "You hold" : `${this.name(v.current)} holds`;
      parts.push(h("div", { class: "pile", id: "held" }, h("div", { class: "card " +
        (card ? "up" + (card.red ? " red" : "") : "down"), role: "img",
      "aria-label": `${who} ${card ? card.label : "a card you have not seen"}` },
      card ? card.face : ""), who));
    }
    return h("div", { class: "centre" }, parts);
  }
}

// ------------------------------------------------------------------------------------
// After the lessons: a normal practice table against Robin and Alex

async function freshRound() {
  errors.replaceChildren();
  let reply;
  try {
    reply = await post("/api/tables", { variant: "practice", players: 3,
      bots: { 1: "memory", 2: "memory" }, names: { 1: "Robin", 2: "Alex" } });
  } catch (error) {
    showError(`Cannot reach the server: ${error}`);
    return;
  }
  if (reply.type === "error") { showError(`The table was not created: ${plain(reply)}`); return; }
  location.assign(reply.links["0"]);
}

showList();
