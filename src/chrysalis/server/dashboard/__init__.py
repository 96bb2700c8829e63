"""``chrysalis ui``: a read-only dashboard over the stores, in the browser, on 127.0.0.1 (docs/dashboard.md).

``app`` is the Starlette app (routes, the token gate, serving through uvicorn); ``data`` reads the
stores and the runtime database per request; ``pages`` renders the tables (runs, stats, queue) and
``views`` the drawn pages (archive grids, plan trees), both with ``html``'s layout and escaping helpers.
"""
