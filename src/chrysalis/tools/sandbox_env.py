"""The environment a command gets: an allow list, so provider keys and tokens never reach it.

A command started by the agent sees the variables it needs to work (``PATH``, the locale, the
terminal, the time zone, a few harmless Python and pytest switches) and nothing else: not
``OPENAI_API_KEY``, not ``GITHUB_TOKEN``, not ``SSH_AUTH_SOCK``, not ``AWS_*``, not the
``CHRYSALIS_*`` settings. A name on the allow list is still dropped when it looks like a secret
(``PYTHON_KEYRING_TOKEN``), so the two lists cannot disagree in the unsafe direction. This holds
with every sandbox, and without one (``--unsafe-no-sandbox``). ``looks_secret`` lives in
``chrysalis.redact``, beside the redaction of secret values that tools still read from files.
"""

from __future__ import annotations

from collections.abc import Mapping

from chrysalis.redact import looks_secret

__all__ = ["ALLOWED_NAMES", "ALLOWED_PREFIXES", "command_env", "looks_secret"]

ALLOWED_NAMES = frozenset(
    {
        "LANG",
        "LANGUAGE",
        "TERM",
        "COLORTERM",
        "TZ",
        "NO_COLOR",
        "FORCE_COLOR",
        "CLICOLOR",
        "COLUMNS",
        "LINES",
        "USER",
        "LOGNAME",
        "CI",
        "SOURCE_DATE_EPOCH",
        "PYTHONPATH",
        "PYTHONIOENCODING",
        "PYTHONUTF8",
        "PYTHONHASHSEED",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONUNBUFFERED",
        "PYTHONWARNINGS",
        "PYTHONFAULTHANDLER",
        "PYTHONDEVMODE",
        "PYTHONSAFEPATH",
        "PYTEST_ADDOPTS",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
    }
)
"""Variables passed through as they are (``PATH``, ``HOME``, ``TMPDIR`` and ``VIRTUAL_ENV`` are set by the sandbox)."""
ALLOWED_PREFIXES = ("LC_",)
"""Variables passed through by prefix: the locale categories."""


def command_env(environ: Mapping[str, str], **fixed: str) -> dict[str, str]:
    """The allow-listed part of ``environ``, plus the ``fixed`` variables (``PATH``, ``HOME``, ...)."""
    env = {
        name: value
        for name, value in environ.items()
        if (name in ALLOWED_NAMES or name.startswith(ALLOWED_PREFIXES)) and not looks_secret(name)
    }
    env.update(fixed)
    return env
