"""The HTTP side of the table server's limits: a client gets ``header_timeout_s`` from the
moment it connects (or its last response ended) to the end of its request's headers; a
socket that trickles a header line every few seconds is closed then, so slow sockets cannot
hold the server's file descriptors."""

from __future__ import annotations

import asyncio
import logging

from uvicorn.protocols.http.auto import AutoHTTPProtocol

log = logging.getLogger("climbrl.table")
DEFAULT_HEADER_TIMEOUT_S = 10.0


def http_protocol(header_timeout_s: float = DEFAULT_HEADER_TIMEOUT_S) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol (``http=`` of its config) with the header deadline."""

    class HeaderDeadline(AutoHTTPProtocol):
        def connection_made(self, transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def _arm(self) -> None:
            """The headers of the next request are due in ``header_timeout_s``: a request
            cycle other than the one now (None before the first) must have started by then."""
            self._waiting_on = self.cycle
            self._deadline = self.loop.call_later(header_timeout_s, self._late)

        def _late(self) -> None:
            transport, cycle = self.transport, self.cycle
            if (cycle is self._waiting_on and (cycle is None or cycle.response_complete)
                    and not transport.is_closing()
                    and transport.get_protocol() is self):  # not a WebSocket now
                log.info("closed a connection whose request headers took over %g s", header_timeout_s)
                transport.close()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._deadline.cancel()
            self._arm()

        def connection_lost(self, exc) -> None:
            self._deadline.cancel()
            super().connection_lost(exc)

    return HeaderDeadline
