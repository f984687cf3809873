// A client in another language: drive `cambio engine` over standard input and output
// and play one round with random legal moves.
//
//   node examples/node_client.mjs [--variant snap] [--players 3] [--seed 7] [--engine "cambio engine"]
//
// Every request is one JSON line; every reply is one JSON line, in order. The script
// asks for the protocol version, creates a table, and then, until the round is over,
// asks the seat to act for its view and legal actions and sends one at random (by id,
// or now and then by its text). It prints each seat's final view of the scores.

import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const args = process.argv.slice(2);
function option(name, fallback) {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
}
const variant = option("variant", "practice");
const players = Number(option("players", "3"));
const seed = Number(option("seed", "7"));
const command = option("engine", "cambio engine").split(" ");

// A small seeded generator, so the same seed plays the same moves.
let state = seed >>> 0 || 1;
function random() {
  state ^= state << 13;
  state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5;
  state >>>= 0;
  return state / 4294967296;
}

const engine = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const lines = createInterface({ input: engine.stdout });
const waiting = [];
lines.on("line", (line) => {
  const next = waiting.shift();
  if (next) next(JSON.parse(line));
});

let counter = 0;
function request(message) {
  counter += 1;
  return new Promise((resolve) => {
    waiting.push(resolve);
    engine.stdin.write(JSON.stringify({ ...message, id: counter }) + "\n");
  });
}

function fail(reply) {
  console.error(`engine error ${reply.code}: ${reply.message}`);
  engine.stdin.end();
  process.exit(1);
}

const hello = await request({ type: "hello", protocol: 1 });
if (hello.type !== "hello") fail(hello);
console.log(`${hello.engine} ${hello.version}, protocol ${hello.protocol}`);

const created = await request({ type: "create", variant, players, seed });
if (created.type !== "created") fail(created);
const table = created.table;
console.log(`table ${table}: ${created.rules}, ${created.players} players, seed ${created.seed}`);

const bad = await request({ type: "act", table, seat: 0, action: "fly away" });
console.log(`a bad action is refused: ${bad.type} ${bad.code}`);

let actions = 0;
for (let step = 0; step < 10000; step++) {
  const look = await request({ type: "view", table, seat: 0 });
  if (look.type !== "view") fail(look);
  const view = look.view;
  if (view.to_act === null) break; // the round is over
  const seat = view.to_act;
  const mine = await request({ type: "view", table, seat });
  const legal = mine.legal;
  const choice = legal[Math.floor(random() * legal.length)];
  // Act by id most of the time, by the action's text now and then: both are the protocol.
  const action = random() < 0.25 ? choice.text : choice.id;
  const acted = await request({ type: "act", table, seat, action, at: mine.view.at });
  if (acted.type !== "acted") fail(acted);
  actions += 1;
}

const final = await request({ type: "view", table, seat: 0 });
const result = final.view.result;
console.log(`round over after ${actions} actions: ${result.reason}`);
console.log(`scores: ${result.scores.join(" ")}; winners: ${result.winners.map((w) => "P" + w).join(" ")}`);
engine.stdin.end();
