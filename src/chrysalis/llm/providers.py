"""The one model factory: ``build_model(settings)`` turns ``--model``/``--base-url`` into a pydantic-ai model.

==================  ====================================================================  ==================
``--model``         model                                                                 key
==================  ====================================================================  ==================
``local:NAME``      ``TextToolModel`` over llama.cpp in process (constrained tool calls)  none
``openai:NAME``     pydantic-ai ``OpenAIChatModel``                                       ``OPENAI_API_KEY``
``anthropic:NAME``  pydantic-ai ``AnthropicModel``                                        ``ANTHROPIC_API_KEY``
``openrouter:NAME`` ``OpenAIChatModel`` at https://openrouter.ai/api/v1                   ``OPENROUTER_API_KEY``
``ollama:NAME``     ``OpenAIChatModel`` at ``$OLLAMA_BASE_URL`` (native tool calls)       none
``NAME`` + URL      ``OpenAIChatModel`` at ``--base-url``                                 ``OPENAI_API_KEY`` if set
==================  ====================================================================  ==================

For a server whose models have no native tool calls, use the text protocol directly:
``TextToolModel(OpenAICompatBackend(name, base_url))``.

Keys are checked before anything is sent (``MissingCredentialsError`` names the variable). Every
HTTP request goes through one ``RetryPolicy``: 429, 5xx, timeouts and dropped connections are
retried with exponential backoff (the SDKs' own retries are turned off so there is one rule), and
what still fails is turned into a ``ModelError`` by ``translate_model_error``, which the agent loop
calls on any exception from a run. Provider SDKs are imported inside ``build_model`` only, so
``chrysalis --help`` stays fast.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from chrysalis.config import Settings
from chrysalis.errors import MissingCredentialsError, ModelError
from chrysalis.llm.backend import ChatBackend
from chrysalis.llm.names import ModelName
from chrysalis.llm.openai_compat import RetryPolicy
from chrysalis.tls import tls_context

if TYPE_CHECKING:
    import httpx2
    from pydantic_ai.models import Model

__all__ = [
    "DEFAULT_OLLAMA_URL",
    "KEY_VARS",
    "OPENAI_URL",
    "OPENROUTER_URL",
    "RetryPolicy",
    "build_model",
    "openai_endpoint",
    "translate_model_error",
]

OPENAI_URL = "https://api.openai.com/v1"

OPENROUTER_URL = "https://openrouter.ai/api/v1"
DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434/v1"
REQUEST_TIMEOUT = 120.0
KEY_VARS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "openrouter": "OPENROUTER_API_KEY"}
"""The environment variable that holds each remote provider's API key."""


def build_model(
    settings: Settings,
    *,
    on_text: Callable[[str], None] | None = None,
    retry: RetryPolicy | None = None,
    environ: Mapping[str, str] | None = None,
    reasoning: bool = False,
) -> Model:
    """The pydantic-ai model that ``settings.model`` (and ``settings.base_url``) name.

    Args:
        settings: The run's settings; ``model``, ``base_url`` and ``home`` are read.
        on_text: Receives streamed text from the embedded model (remote models stream through
            pydantic-ai's own events instead).
        retry: The backoff rule for provider errors; ``RetryPolicy()`` (3 tries, 0.5 s, 1 s) by default.
        environ: Where API keys are looked up; ``os.environ`` by default.
        reasoning: Ask a text-protocol model (the embedded one) for a short thought before each call
            (the priority plan's choice).

    Raises:
        UsageError: the model name is malformed or its provider unknown.
        MissingCredentialsError: the provider needs a key that is not set.
    """
    env = os.environ if environ is None else environ
    name = ModelName.parse(settings.model, base_url=settings.base_url)
    policy = retry or RetryPolicy()
    if name.provider == "local":
        return _local_model(name, settings, on_text, reasoning=reasoning)
    if name.provider == "anthropic":
        return _anthropic_model(name, _require_key(name, env), settings.base_url, policy)
    return _openai_chat_model(name, openai_endpoint(name, settings.base_url, env), policy)


def _require_key(name: ModelName, env: Mapping[str, str]) -> str:
    var = KEY_VARS[name.provider]
    key = env.get(var, "").strip()
    if not key:
        raise MissingCredentialsError(name.provider, var)
    return key


def openai_endpoint(name: ModelName, base_url: str | None, env: Mapping[str, str]) -> tuple[str | None, str]:
    """``(base_url, api_key)`` for the OpenAI-wire providers; ``None`` URL means OpenAI itself (``OPENAI_URL``).

    Raises:
        MissingCredentialsError: the provider needs a key that is not set.
    """
    if name.provider == "openai":
        return base_url, _require_key(name, env)
    if name.provider == "openrouter":
        return base_url or OPENROUTER_URL, _require_key(name, env)
    if name.provider == "ollama":
        url = base_url or env.get("OLLAMA_BASE_URL") or DEFAULT_OLLAMA_URL
        return url, env.get("OLLAMA_API_KEY") or "ollama"
    return base_url, env.get("OPENAI_API_KEY") or "none"  # openai-compatible: most local servers need no key


def _local_model(
    name: ModelName, settings: Settings, on_text: Callable[[str], None] | None, *, reasoning: bool = False
) -> Model:
    from chrysalis.llm.text_protocol import TextToolModel

    # Imported by name: the embedded runtime is an optional extra and loads llama.cpp on import.
    module = importlib.import_module("chrysalis.llm.local.llama_backend")
    backend = cast(ChatBackend, module.LlamaCppBackend.load(name.name, settings.home))
    return TextToolModel(backend, on_text=on_text, system="local", reasoning=reasoning)


def _openai_chat_model(name: ModelName, endpoint: tuple[str | None, str], policy: RetryPolicy) -> Model:
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.ollama import OllamaProvider
    from pydantic_ai.providers.openai import OpenAIProvider
    from pydantic_ai.providers.openrouter import OpenRouterProvider

    from chrysalis.llm.openai_lean import LeanAsyncOpenAI

    base_url, api_key = endpoint
    http = _http_client(policy)
    client = LeanAsyncOpenAI(
        api_key=api_key, base_url=base_url, max_retries=0, timeout=REQUEST_TIMEOUT, http_client=http
    )
    provider: Any
    if name.provider == "openrouter":
        provider = OpenRouterProvider(openai_client=client)
    elif name.provider == "ollama":
        provider = OllamaProvider(openai_client=client)
    else:
        provider = OpenAIProvider(openai_client=client)
    return OpenAIChatModel(name.name, provider=_owning(provider, http, policy))


def _anthropic_model(name: ModelName, api_key: str, base_url: str | None, policy: RetryPolicy) -> Model:
    from anthropic import AsyncAnthropic
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    http = _http_client(policy)
    client = AsyncAnthropic(
        api_key=api_key, base_url=base_url, max_retries=0, timeout=REQUEST_TIMEOUT, http_client=http
    )
    return AnthropicModel(name.name, provider=_owning(AnthropicProvider(anthropic_client=client), http, policy))


def _owning(provider: Any, http: httpx2.AsyncClient, policy: RetryPolicy) -> Any:
    """Hand our HTTP client to the provider as if it had made it.

    A provider closes only a client it owns (on ``async with agent:``) and replaces only such a client
    when a run starts on a new event loop; a client passed in is neither, so its sockets would leak.
    pydantic-ai 2.68 (pinned) records ownership in these two attributes.
    """
    provider._own_http_client = http
    provider._http_client_factory = lambda: _http_client(policy)
    return provider


def _http_client(policy: RetryPolicy) -> httpx2.AsyncClient:
    import httpx2

    class RetryTransport(httpx2.AsyncBaseTransport):
        """Retries transient failures below the SDK, so every provider follows the same ``RetryPolicy``."""

        def __init__(self) -> None:
            self._inner = httpx2.AsyncHTTPTransport(verify=tls_context())

        async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
            for attempt in range(policy.tries):
                last = attempt + 1 >= policy.tries
                try:
                    response = await self._inner.handle_async_request(request)
                except (httpx2.TimeoutException, httpx2.NetworkError):
                    if last:
                        raise
                else:
                    if last or not policy.should_retry_status(response.status_code):
                        return response
                    await response.aclose()
                await policy.wait(attempt)
            raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover

        async def aclose(self) -> None:
            await self._inner.aclose()

    return httpx2.AsyncClient(transport=RetryTransport(), timeout=REQUEST_TIMEOUT)


_STATUS_HINTS = {
    400: "the provider rejected the request; check the model name and settings",
    401: "the API key was refused; check the key in the provider's environment variable",
    402: "the account has no credit left; top it up or choose another model",
    403: "the API key may not use this model; check the key's permissions",
    404: "the model or endpoint was not found; check --model and --base-url",
    408: "the provider timed out; try again",
    413: "the request is too large; use /compact or a model with a larger context",
    429: "the provider is rate limiting; wait a little or lower the request rate",
}


def translate_model_error(exc: BaseException) -> ModelError | None:
    """Turn a provider failure from a run into a ``ModelError`` whose message says what to check.

    Returns ``None`` for anything that is not a model-provider failure (a bug, a tool error), which
    the caller should let propagate. The original exception stays available as ``__cause__``.
    """
    if isinstance(exc, ModelError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        group = cast(BaseExceptionGroup[BaseException], exc)
        return next((e for e in map(translate_model_error, group.exceptions) if e is not None), None)
    error = _translate(exc)
    if error is not None:
        error.__cause__ = exc
    return error


def _translate(exc: BaseException) -> ModelError | None:
    from pydantic_ai import exceptions as pe

    if isinstance(exc, pe.ModelHTTPError):
        status = exc.status_code
        hint = _STATUS_HINTS.get(status) or (
            "the provider failed; try again later" if status >= 500 else "check the model name and settings"
        )
        body = str(exc.body)[:300] if exc.body is not None else "no details"
        retried = " (after retries with backoff)" if status >= 500 or status == 429 else ""
        return ModelError(f"The model {exc.model_name!r} failed with HTTP {status}{retried}: {body}. Hint: {hint}.")
    if isinstance(exc, pe.ModelRequestTimeout | pe.ModelConnectionError):
        return ModelError(
            f"Could not get an answer from the model {exc.model_name!r} ({exc.message}), even after retries. "
            f"Check your network, the provider's status, or --base-url."
        )
    if isinstance(exc, pe.ModelAPIError):
        return ModelError(f"The model {exc.model_name!r} failed: {exc.message}.")
    if isinstance(exc, pe.UnexpectedModelBehavior):
        return ModelError(f"The model returned something unusable: {exc.message}")
    return None
