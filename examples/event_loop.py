"""An event-driven loop of the kind a GUI or a web server runs around a Round.

    python examples/event_loop.py [--variant penalty] [--seed 4] [--quiet]

Each seat is a *client*: here a bot, in real life a browser tab or an app. A client
never touches the Round. It receives messages (the round's events as that seat saw
them, and prompts: "your move", "you may snap") and answers by putting commands on the
server's queue. The server takes the commands off the queue, checks each with
``Round.can_apply``, applies it, and sends every resulting event to every client
through ``Event.as_seen_by``, so a client only ever receives cards its seat saw.

Reaction windows: whenever the top discard can be snapped (``Round.reactors`` is not
empty) the server prompts those players as well as the player to act. Answers to the
same prompt count as simultaneous: snaps among them are settled together by
``Round.resolve_snaps`` in the table's arbitration order and take precedence over the
turn holder's move, which is then prompted again. Every command names the prompt it
answers (the number of actions applied so far), so an answer that arrives after the
round has moved on is refused as stale instead of being applied to the wrong moment.
"""

from __future__ import annotations

import argparse
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import cambio
from cambio import Action, ActionKind, Event
from cambio.bots import Bot, MemoryBot, RandomBot


@dataclass(frozen=True)
class Command:
    """What a client sends: who, which prompt it answers, and the action."""

    seat: int
    prompt: int
    action: Action


class Client:
    """One seat's end of the connection: it receives messages and queues commands."""

    def __init__(self, seat: int, bot: Bot, queue: deque[Command], echo: bool) -> None:
        self.seat, self.bot, self.queue, self.echo = seat, bot, queue, echo
        self.received: list[Event] = []  # every event, exactly as this seat saw it

    def on_events(self, events: Sequence[Event]) -> None:
        self.received.extend(events)
        if self.echo:  # print the round through this seat's eyes (unseen cards are ??)
            for event in events:
                print(f"  [P{self.seat} sees] {event}")

    def on_your_move(self, prompt: int, view: cambio.PlayerView, legal: list[Action]) -> None:
        self.queue.append(Command(self.seat, prompt, self.bot.act(view, legal)))

    def on_may_snap(self, prompt: int, view: cambio.PlayerView, snaps: list[Action]) -> None:
        choice = self.bot.react(view, snaps)
        if choice is not None:  # staying silent is how a client lets a discard go
            self.queue.append(Command(self.seat, prompt, choice))

    def on_refused(self, command: Command, reason: str) -> None:
        print(f"  server -> P{self.seat}: refused {command.action}: {reason}")


class Server:
    """Owns the Round; the only place where actions are applied."""

    def __init__(self, rnd: cambio.Round, clients: list[Client], queue: deque[Command]) -> None:
        self.rnd, self.clients, self.queue = rnd, clients, queue
        self.refused = 0

    @property
    def prompt(self) -> int:
        return len(self.rnd.action_ids)  # changes with every applied action

    def send_events(self, events: Sequence[Event]) -> None:
        for client in self.clients:
            client.on_events([event.as_seen_by(client.seat) for event in events])

    def send_prompts(self) -> None:
        rnd = self.rnd
        for seat in rnd.reactors:  # a reaction window is open: who may snap now
            snaps = [a for a in rnd.legal_actions(seat) if a.kind is ActionKind.SNAP]
            self.clients[seat].on_may_snap(self.prompt, rnd.view(seat), snaps)
        seat = rnd.to_act
        if seat is not None:
            self.clients[seat].on_your_move(self.prompt, rnd.view(seat), rnd.legal_actions(seat))

    def refuse(self, command: Command, reason: str) -> None:
        self.refused += 1
        self.clients[command.seat].on_refused(command, reason)

    def handle(self, batch: list[Command]) -> None:
        """Handle every command that arrived since the last prompt."""
        rnd = self.rnd
        fresh: list[Command] = []
        for command in batch:
            if command.prompt != self.prompt:
                self.refuse(command, "stale: the round has moved on")
            elif command.action.player != command.seat:
                self.refuse(command, "a client may act only for its own seat")
            elif not rnd.can_apply(command.action):
                try:
                    rnd.verify(command.action)  # raises with the reason
                except cambio.IllegalActionError as error:
                    self.refuse(command, error.reason)
            else:
                fresh.append(command)
        snaps = [c for c in fresh if c.action.kind is ActionKind.SNAP]
        if snaps:
            # Simultaneous snaps: the table's arbitration decides their order.
            events = rnd.resolve_snaps([c.action for c in snaps])
            for command in fresh:
                if command not in snaps:
                    self.refuse(command, "overtaken by a snap; you will be asked again")
        elif fresh:
            events = rnd.apply(fresh[0].action)  # only the player to act has a move
        else:
            events = []
        self.send_events(events)

    def run(self) -> cambio.RoundResult:
        self.send_events(self.rnd.events)  # the deal and the opening peeks so far
        while not self.rnd.is_over:
            self.send_prompts()
            batch = list(self.queue)
            self.queue.clear()
            self.handle(batch)
        result = self.rnd.result
        assert result is not None
        return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run a round through a command queue.")
    parser.add_argument("--variant", default="penalty", help="a table with snapping shows more")
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--quiet", action="store_true", help="do not print P0's event stream")
    args = parser.parse_args(argv)

    rules = cambio.load_ruleset(args.variant)
    rnd = cambio.Round(rules, seed=args.seed)
    queue: deque[Command] = deque()
    # Seat 1 guesses at snaps now and then (wrong snaps cost a penalty card); the others
    # snap only cards they know.
    bots: list[Bot] = [
        RandomBot(never_call=True, snap_rate=0.3) if seat == 1 else MemoryBot()
        for seat in range(rnd.players)
    ]
    for seat, bot in enumerate(bots):
        bot.reset(seat, rules, args.seed * 100 + seat)
    clients = [
        Client(seat, bot, queue, echo=seat == 0 and not args.quiet) for seat, bot in enumerate(bots)
    ]
    server = Server(rnd, clients, queue)

    # An impatient client clicks "call" before its turn: the server refuses it.
    queue.append(Command(2, server.prompt, Action.call(2)))

    result = server.run()
    print(f"\n{rules.name}: ended by {result.reason}; totals {list(result.totals)}; ", end="")
    print(f"winners {' '.join(f'P{w}' for w in result.winners)}; {server.refused} commands refused")
    # Each client's stream of events is exactly the history in its own view.
    same = all(tuple(c.received) == rnd.view(c.seat).history for c in clients)
    print(f"every client's events equal its view's history: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
