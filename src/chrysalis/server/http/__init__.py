"""``chrysalis serve --http``: a FastAPI service over the durable queue, on 127.0.0.1 by default (docs/http.md).

``service`` builds the app and serves it (uvicorn, the exposure check); ``routes`` holds the thin
handlers; ``models`` the request and response bodies that are the ``/openapi.json`` schema; ``runs``
queues runs in the durable runtime and executes them; ``errors`` gives every refusal one shape.
"""
