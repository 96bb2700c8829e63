"""The errors Chrysalis raises, sorted by who must act on them.

Every error a user can cause carries a message that names the bad value, where it came from and
how to fix it, plus the process exit code the CLI should use. The CLI prints the message, never a
traceback.

    ChrysalisError                 base; ``exit_code`` 1
    ├── UsageError                 the user must act: bad flag, config file or argument (exit 2)
    │   ├── ConfigError            a config file or env var holds a bad value
    │   └── MissingCredentialsError  a provider needs an API key that is not set
    ├── PolicyDenied               the security level or mode refused an action (exit 3)
    ├── ModelError                 the model provider failed after retries (exit 1)
    │   ├── MalformedReplyError    the model kept replying with output that cannot be parsed
    │   └── EmbeddingError         the embedder of the ``embeddings`` setting failed; memory falls back to words
    ├── WeightsError               the embedded model's weights are missing or corrupt (exit 2)
    ├── TaskStopped                a limit stopped the run: steps, budget, timeout (exit 1)
    ├── TaskFailed                 the agent finished without success (exit 1)
    ├── InternalError              a bug in Chrysalis itself; the traceback is saved under logs/ (exit 1)
    ├── OutputValidationError      a module's output failed its signature twice; names the field (exit 1)
    └── MetricError                a compile metric raised; names the metric and the example (exit 2)

Errors meant for the *model* (a bad tool argument, a path outside the workspace) are not raised
through the run: tools return them as ``ToolResult(ok=False, error=...)`` so the model can retry.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from pathlib import Path

__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_POLICY",
    "EXIT_USAGE",
    "ChrysalisError",
    "ConfigError",
    "EmbeddingError",
    "InternalError",
    "MalformedReplyError",
    "MetricError",
    "MissingCredentialsError",
    "ModelError",
    "OutputValidationError",
    "PolicyDenied",
    "TaskFailed",
    "TaskStopped",
    "UsageError",
    "WeightsError",
    "report_bug",
]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_POLICY = 3
EXIT_INTERRUPTED = 130


class ChrysalisError(Exception):
    """Base class of every error Chrysalis raises on purpose."""

    exit_code: int = EXIT_FAILED


class UsageError(ChrysalisError):
    """The user gave a bad flag, argument or file; the message says how to fix it."""

    exit_code = EXIT_USAGE


class ConfigError(UsageError):
    """A config file, env var or flag holds a value that is not allowed."""


class MissingCredentialsError(UsageError):
    """A provider was chosen whose API key is not set."""

    def __init__(self, provider: str, env_var: str) -> None:
        super().__init__(
            f"The {provider!r} provider needs an API key: set the {env_var} environment variable "
            f"(or choose another model with --model, e.g. local:qwen2.5-coder-1.5b)."
        )
        self.provider = provider
        self.env_var = env_var


class PolicyDenied(ChrysalisError):
    """The security level or mode refused an action the task needed."""

    exit_code = EXIT_POLICY


class ModelError(ChrysalisError):
    """The model provider failed (after retries) or returned something unusable."""


class MalformedReplyError(ModelError):
    """The model answered, but with text that is no usable tool call or answer, even after corrections.

    The provider works; the model's output does not. Callers that score outputs (compile) count it
    as a wrong answer instead of stopping, and pay for the tokens it carries.
    """

    def __init__(self, message: str, *, input_tokens: int = 0, output_tokens: int = 0) -> None:
        super().__init__(message)
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        """Tokens spent on the unusable replies (prompt and output of every try)."""


class EmbeddingError(ModelError):
    """The embedder that the ``embeddings`` setting names could not turn text into vectors.

    The message names the setting, where it was set, and the fix (a key to set, a server to start,
    weights to fetch). Memory never loses a note over it: the note is kept and found by its words,
    and ``chrysalis memory reindex`` gives it a vector once the embedder works (that command exits 2
    with this message while it does not).
    """


class WeightsError(ChrysalisError):
    """The embedded model's weights are missing, incomplete or fail their checksum."""

    exit_code = EXIT_USAGE


class TaskStopped(ChrysalisError):
    """A run limit (steps, budget, timeout) stopped the agent before it finished."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class TaskFailed(ChrysalisError):
    """The agent ended its run without completing the task."""


class InternalError(ChrysalisError):
    """Something went wrong that is neither the user's input nor the model provider: a bug in Chrysalis.

    Made by ``report_bug``, which saves the traceback first, so the message can say where it is.
    The original exception is ``__cause__`` (the CLI prints its traceback with ``--debug``).
    """

    def __init__(self, message: str, log_path: Path | None) -> None:
        super().__init__(message)
        self.log_path = log_path


def report_bug(exc: BaseException, home: Path, *, doing: str) -> InternalError:
    """Save ``exc``'s traceback under ``home/logs/`` and return the short error the user sees.

    ``doing`` says what was going on ("running the task"), so the message reads as a sentence.
    A log that cannot be written (read-only home) still gives the error, without the path.
    """
    log = home / "logs" / f"bug-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
    header = f"chrysalis bug while {doing}\nargv: {sys.argv}\npython: {sys.version.split()[0]}\n\n"
    path: Path | None = log
    try:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(header + "".join(traceback.format_exception(exc)), encoding="utf-8")
    except OSError:
        path = None
    saved = f"The traceback is saved in {path}" if path else "The traceback could not be saved"
    error = InternalError(
        f"This is a bug in chrysalis, not in your task or the model ({type(exc).__name__} while {doing}: {exc}). "
        f"{saved}; rerun with --debug to print it, and please include it in a bug report.",
        path,
    )
    error.__cause__ = exc
    return error


class OutputValidationError(ChrysalisError):
    """A module's output still broke its signature after one retry with the error.

    ``field`` names the output field that failed (``None`` when the reply had no usable fields at
    all), ``value`` is what the model gave for it, and ``errors`` holds the validator's messages.
    """

    def __init__(self, signature: str, field: str | None, value: object, errors: list[str]) -> None:
        where = f"field {field!r}" if field else "the output"
        shown = repr(value)
        shown = shown if len(shown) <= 120 else shown[:117] + "..."
        super().__init__(
            f"{signature}: the model's {where} failed validation twice (value {shown}): {'; '.join(errors)}. "
            f"Check the field's type and description, or use a stronger model."
        )
        self.signature = signature
        self.field = field
        self.value = value
        self.errors = errors
        # What the failed call still cost (filled in by the caller that made it), so budgets and
        # phenotypes count failures too.
        self.calls = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.cost_usd = 0.0
        self.latency_ms = 0.0


class MetricError(ChrysalisError):
    """A compile metric raised on an example: a bug in the metric, which the user must fix."""

    exit_code = EXIT_USAGE
