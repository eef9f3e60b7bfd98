"""A Python client of the table protocol, for tests, bots and the load benchmark.

Two transports, one interface: :class:`TableClient` wraps any object with ``send_text`` /
``receive_text`` (Starlette's ``TestClient`` WebSocket, or :class:`SocketTransport`
over a real socket with the ``websockets`` package). It records every frame it receives
(``frames``) and keeps the latest ``state``.

>>> client = TableClient.connect("ws://127.0.0.1:8000/ws")      # doctest: +SKIP
>>> client.create(game="daifugo", mode="cpu", level="easy", pace_ms=0)
>>> while not client.state["match"]["over"]:
...     client.play_first()
"""

from __future__ import annotations

import json
from typing import Any


class ServerError(RuntimeError):
    def __init__(self, message: dict[str, Any]):
        super().__init__(f"{message.get('code')}: {message.get('message')}")
        self.code = message.get("code")
        self.message = message


class SocketTransport:
    """A blocking WebSocket (``websockets.sync``)."""

    def __init__(self, url: str, timeout: float = 30.0):
        from websockets.sync.client import connect

        # entered by hand: the connection lives as long as this transport, not one block
        self.ws = connect(url, open_timeout=timeout, max_size=1 << 22).__enter__()
        self.timeout = timeout

    def send_text(self, text: str) -> None:
        self.ws.send(text)

    def receive_text(self) -> str:
        return self.ws.recv(timeout=self.timeout)

    def close(self) -> None:
        self.ws.close()


class TableClient:
    def __init__(self, transport, record: bool = True):
        self.transport = transport
        self.record = record
        self.frames: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None
        self.hello = self.receive()
        self.room: str | None = None
        self.token: str | None = None
        self.seats: list[int] = []
        self._next_id = 0
        self._nexts: set[int] = set()

    @classmethod
    def connect(cls, url: str, timeout: float = 30.0, record: bool = True) -> TableClient:
        return cls(SocketTransport(url, timeout), record)

    # -- raw -------------------------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> int:
        self._next_id += 1
        message = {**message, "id": self._next_id}
        self.transport.send_text(json.dumps(message))
        return self._next_id

    def send_raw(self, text: str) -> None:
        self.transport.send_text(text)

    def receive(self) -> dict[str, Any]:
        message = json.loads(self.transport.receive_text())
        if self.record:
            self.frames.append(message)
        if message.get("type") == "state":
            self.state = message
        return message

    def request(self, message: dict[str, Any], want: str | tuple[str, ...]) -> dict[str, Any]:
        """Send ``message`` and read until its reply of type ``want`` (``state`` frames on the
        way are kept); :class:`ServerError` when the reply is an error."""
        wants = (want,) if isinstance(want, str) else want
        rid = self.send(message)
        while True:
            reply = self.receive()
            if reply.get("type") == "error" and reply.get("re") == rid:
                raise ServerError(reply)
            if reply.get("type") in wants and reply.get("re") == rid:
                return reply

    def until(self, predicate, limit: int = 100_000) -> dict[str, Any]:
        """Read frames until a ``state`` satisfies ``predicate`` (checked on the latest state
        first)."""
        if self.state is not None and predicate(self.state):
            return self.state
        for _ in range(limit):
            message = self.receive()
            if message.get("type") == "state" and predicate(message):
                return message
        raise TimeoutError("no such state")

    # -- the protocol ------------------------------------------------------------------------

    def create(self, **settings) -> dict[str, Any]:
        joined = self.request({"type": "create", **settings}, "joined")
        self._joined(joined)
        self.until_reply(joined["re"])
        return joined

    def join(self, room: str, token: str | None = None, name: str | None = None) -> dict[str, Any]:
        message: dict[str, Any] = {"type": "join", "room": room}
        if token is not None:
            message["token"] = token
        if name is not None:
            message["name"] = name
        joined = self.request(message, "joined")
        self._joined(joined)
        self.until_reply(joined["re"])
        return joined

    def until_reply(self, rid) -> dict[str, Any]:
        """Read until the ``state`` that answers request ``rid``."""
        while True:
            message = self.receive()
            if message.get("type") == "state" and message.get("re") == rid:
                return message

    def _joined(self, joined: dict[str, Any]) -> None:
        self.room = joined["room"]
        self.token = joined["token"]
        self.seats = joined["seats"]

    def receive_state(self) -> dict[str, Any]:
        while True:
            message = self.receive()
            if message.get("type") == "state":
                return message
            if message.get("type") == "error":
                raise ServerError(message)

    def my_turn(self, state: dict[str, Any] | None = None) -> bool:
        state = state or self.state
        return bool(state and state.get("your_turn") and state.get("moves"))

    def move(self, action: int, **extra) -> None:
        """Send a move (the next ``state`` comes in through :meth:`receive`)."""
        self.send({"type": "move", "action": action, **extra})

    def check(self, cards: list[int], **extra) -> dict[str, Any]:
        return self.request({"type": "check", "cards": cards, **extra}, "checked")

    def hint(self, **extra) -> dict[str, Any]:
        return self.request({"type": "hint", **extra}, "hint")

    def step(self, choose, next_deals: bool = True) -> bool:
        """React to the latest state as a bot: lift the curtain (one device), play
        ``choose(state) -> action`` on its turn, ask for the next deal when one is over.
        Returns ``False`` once the match is over. Reads one message when nothing is to do."""
        st = self.state
        if st is not None:
            match = st.get("match")
            if match and match.get("over"):
                return False
            if st["v"] != self._acted or st.get("curtain") is not None and st["v"] != self._revealed:
                if st.get("curtain") is not None:
                    self._revealed = st["v"]
                    self.send({"type": "reveal", "seat": st["curtain"]["seat"]})
                elif self.my_turn(st):
                    self._acted = st["v"]
                    extra = {"seat": st["seat"]} if st["mode"] == "local" else {}
                    self.move(choose(st), v=st["v"], **extra)
                elif next_deals and st.get("result") and st["turn"] is None:
                    self._acted = st["v"]
                    self._nexts.add(self.send({"type": "next"}))
        message = self.receive()
        if message.get("type") == "error":
            raced = message.get("code") in ("stale", "not_your_turn") or message.get("re") in self._nexts
            if not raced:  # another person moved first, or already dealt the next deal
                raise ServerError(message)
        return True

    _acted = -1
    _revealed = -1

    def play_match(self, choose, limit: int = 200_000) -> dict[str, Any]:
        """Play (as :meth:`step`) until the match is over; returns the last state."""
        for _ in range(limit):
            if not self.step(choose):
                return self.state
        raise TimeoutError("the match did not end")

    def close(self) -> None:
        close = getattr(self.transport, "close", None)
        if close is not None:
            close()
