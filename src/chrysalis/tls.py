"""One TLS context per process, shared by every HTTP client Chrysalis makes.

Building a context loads the CA bundle: about 70 ms on a quiet machine and 160 ms on a busy one,
more than a loopback request and paid by every client made. A worker makes a model client per run,
the web tools one per fetch; they all verify against the same bundle, so they share one context.
"""

from __future__ import annotations

import functools
import ssl

__all__ = ["tls_context"]


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The process's verifying TLS context: certifi's bundle, or ``SSL_CERT_FILE``/``SSL_CERT_DIR``."""
    import httpx

    return httpx.create_ssl_context()
