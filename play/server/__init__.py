"""The table server: rooms where people play the CPUs in a browser (``climbrl serve``).

- :mod:`.protocol`: the client messages, their schemas and the size and rate limits;
- :mod:`.rooms`: a room (game, rules, seats, the match) changed only by *ops*;
- :mod:`.daifugo`, :mod:`.doudizhu`: a match of each game over its engine, the events a page
  announces, the move lists, labels and checks of lifted cards;
- :mod:`.redact`: the one function that builds what a connection may see;
- :mod:`.store`: every room's settings and ops in SQLite (restored after a restart);
- :mod:`.cpu`: CPU seats thinking in worker processes;
- :mod:`.app`: the Starlette app and the WebSocket endpoint; :mod:`.client`: a Python client.

The protocol is documented in ``docs/protocol.md``.
"""
