"""Model names: ``provider:name``, parsed once so every layer agrees on what a name means.

Users type ``--model openai:gpt-4o-mini`` or ``--model local:qwen2.5-coder-1.5b``; the factory,
pricing and the traces all need the provider and the bare name apart. Parsing here, with one error
message that lists the known providers, keeps that logic out of the CLI and the agent loop.

A bare name (no ``provider:``) is allowed only together with a ``base_url``: it then names a model
on any OpenAI-compatible server, and may itself contain colons (``qwen2.5:0.5b`` on ollama).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast, get_args

from chrysalis.errors import UsageError

__all__ = ["PROVIDERS", "ModelName", "Provider"]

Provider = Literal["local", "openai", "anthropic", "openrouter", "ollama", "openai-compatible"]
PROVIDERS: tuple[str, ...] = get_args(Provider)
_PREFIXED = tuple(p for p in PROVIDERS if p != "openai-compatible")
_EXAMPLES = "local:qwen2.5-coder-1.5b, openai:gpt-4o-mini, anthropic:claude-3-5-haiku-latest, ollama:qwen2.5-coder"


@dataclass(frozen=True)
class ModelName:
    """A model as the user named it: which provider serves it and the provider's own name for it."""

    provider: Provider
    """Who serves the model; ``openai-compatible`` means the server at ``base_url``."""
    name: str
    """The provider's name of the model, passed to it unchanged."""

    def __str__(self) -> str:
        return f"{self.provider}:{self.name}"

    @property
    def is_local(self) -> bool:
        """True when the model runs on this machine, so it costs nothing and needs no key."""
        return self.provider in ("local", "ollama")

    @classmethod
    def parse(cls, spec: str, *, base_url: str | None = None) -> ModelName:
        """Split ``provider:name``; raise ``UsageError`` naming the known providers when it cannot.

        Args:
            spec: What the user typed after ``--model``.
            base_url: The ``--base-url`` given with it, if any. With a URL, a bare name or an unknown
                prefix is the name of a model on that OpenAI-compatible server; ``openai:NAME`` also
                means that server; ``ollama:``/``openrouter:``/``anthropic:`` keep their provider.
        """
        text = spec.strip()
        prefix, sep, rest = text.partition(":")
        known = bool(sep) and prefix in _PREFIXED
        if base_url:
            return cls._parse_with_url(text, prefix if known else None, rest)
        if not sep:
            raise UsageError(
                f"Model {spec!r} has no provider: write it as 'provider:name' (e.g. {_EXAMPLES}), "
                f"or give --base-url for a model on an OpenAI-compatible server."
            )
        if not known:
            raise UsageError(
                f"Unknown model provider {prefix!r} in {spec!r}. Known providers: {', '.join(_PREFIXED)} "
                f"(or a bare name with --base-url for any OpenAI-compatible server)."
            )
        return cls(cast(Provider, prefix), _check_name(rest, spec))

    @classmethod
    def _parse_with_url(cls, text: str, prefix: str | None, rest: str) -> ModelName:
        if prefix == "local":
            raise UsageError(
                f"--base-url cannot be used with the embedded model {text!r}: give --model with the name "
                f"the server knows (e.g. --model gpt-4o-mini or --model ollama:qwen2.5-coder)."
            )
        if prefix is None:
            return cls("openai-compatible", _check_name(text, text))
        provider: Provider = "openai-compatible" if prefix == "openai" else cast(Provider, prefix)
        return cls(provider, _check_name(rest, text))


def _check_name(name: str, spec: str) -> str:
    if not name.strip():
        raise UsageError(f"Model {spec!r} has an empty name: write it as 'provider:name' (e.g. {_EXAMPLES}).")
    return name.strip()
