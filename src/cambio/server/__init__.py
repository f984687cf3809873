"""``cambio serve``: the protocol over WebSockets, tables over HTTP, the web table at ``/``.

Needs the ``server`` extra (``pip install 'cambio-rules[server]'``): Starlette and
uvicorn. The engine itself never imports this package.

* :mod:`cambio.server.app` -- :func:`~cambio.server.app.create_app`, the ASGI
  application, and :class:`~cambio.server.app.ServerConfig`, its limits.
* :mod:`cambio.server.options` -- the command's options and its entry point.
* :mod:`cambio.server.guards` -- uvicorn's protocols with the guards the application
  cannot enforce itself (request head deadline and size, oversized WebSocket frames,
  peers that stop reading).
* ``static/`` -- the web table: plain HTML, CSS and JavaScript modules.
"""

from __future__ import annotations

__all__: list[str] = []
