"""``chrysalis serve --acp``: the agent for editors (Zed and others), over the Agent Client Protocol on stdio.

Protocol version 1, through the ``agent-client-protocol`` SDK: ``initialize``, ``session/new`` (in the
client's ``cwd``, with its MCP servers), ``session/prompt`` (streamed updates, then a ``stopReason``),
``session/cancel``, ``session/load`` (a stored conversation, replayed, then continued) and
``session/set_mode`` (our modes, narrowed only: ``modes.py``). Approvals
become ``session/request_permission`` requests (``session.py``). A session's id is its stored
conversation's, so any later process can load it.

Settings come as for every run: config files, ``CHRYSALIS_*`` variables, the flags of ``chrysalis
serve``; each session re-reads them for its own folder (its project config counts). A bad model or
config is a JSON-RPC error on ``session/new`` or ``session/prompt`` whose message says what to fix.
Nothing but protocol messages goes to stdout: stray writes to it are sent to stderr.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path
from typing import Any, cast

from acp import PROTOCOL_VERSION, RequestError, run_agent
from acp.interfaces import Agent, Client
from acp.schema import (
    AgentCapabilities,
    ClientCapabilities,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SetSessionModeResponse,
)

from chrysalis.config import SettingFlags, Settings, load_settings
from chrysalis.errors import ChrysalisError, UsageError
from chrysalis.server.acp.inputs import ClientMcpServer, PromptBlock, mcp_servers_config, prompt_task
from chrysalis.server.acp.session import AcpSession, BusyError

__all__ = ["ChrysalisAcpAgent", "serve_acp"]

_log = logging.getLogger(__name__)

USAGE_ERROR = -32602
"""The JSON-RPC code of an error the user must fix (a bad model, config, folder or session id): invalid params."""
RUN_ERROR = -32603
"""The JSON-RPC code of an error of the run itself (the provider failed, a bug): internal error."""


class ChrysalisAcpAgent:
    """The ACP ``Agent``: one ``AcpSession`` per session id, each in its own folder."""

    def __init__(self, settings: Settings) -> None:
        """Serve with ``settings`` (as ``chrysalis serve`` loaded them); each session re-reads them for its folder."""
        self.settings = settings
        self.sessions: dict[str, AcpSession] = {}
        self._client: Client | None = None

    def on_connect(self, conn: Client) -> None:
        """The SDK hands us the connection to the client: updates and permission requests go through it."""
        self._client = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        """Protocol version 1; sessions can be loaded; prompts may embed text context; MCP over stdio and HTTP."""
        from chrysalis import __version__

        capabilities = AgentCapabilities(
            load_session=True,
            prompt_capabilities=PromptCapabilities(image=False, audio=False, embedded_context=True),
            mcp_capabilities=McpCapabilities(http=True, sse=False),
        )
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=capabilities,
            agent_info=Implementation(name="chrysalis", title="Chrysalis Forge", version=__version__),
        )

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[ClientMcpServer] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        """A new conversation in ``cwd``; its id is the stored session's (``chrysalis sessions`` lists it)."""
        session = self._open(cwd, mcp_servers, "session/new")
        session_id = session.open_new()
        self.sessions[session_id] = session
        return NewSessionResponse(session_id=session_id, modes=session.modes)

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[ClientMcpServer] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse:
        """Go on with a stored conversation of ``cwd``: replay it as updates, then answer."""
        session = self._open(cwd, mcp_servers, "session/load")
        try:
            await session.load(session_id)
        except ChrysalisError as exc:
            session.close()
            raise _request_error(exc) from exc
        old = self.sessions.pop(session.session_id, None)
        if old is not None:
            old.close()
        self.sessions[session.session_id] = session
        return LoadSessionResponse(modes=session.modes)

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> SetSessionModeResponse:
        """``session/set_mode``: narrow the session's mode (ask, architect, ...) from the next prompt on."""
        session = self._session(session_id)
        try:
            session.set_mode(mode_id)
        except ChrysalisError as exc:
            raise _request_error(exc) from exc
        return SetSessionModeResponse()

    async def prompt(self, session_id: str, prompt: list[PromptBlock], **kwargs: Any) -> PromptResponse:
        """Run the prompt as a task; updates stream while it runs; the answer says why it stopped."""
        session = self._session(session_id)
        try:
            task = prompt_task(prompt, session.agent.settings.workspace)
            stop = await session.prompt(task)
        except BusyError as exc:
            raise RequestError(USAGE_ERROR, str(exc)) from exc
        except ChrysalisError as exc:
            raise _request_error(exc) from exc
        return PromptResponse(stop_reason=stop)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        """``session/cancel``: stop the session's running prompt (it answers ``cancelled``)."""
        session = self.sessions.get(session_id)
        if session is not None:
            session.cancel()

    def close(self) -> None:
        """Stop every session and close its stores (the client went away)."""
        for session in self.sessions.values():
            session.close()
        self.sessions.clear()

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError(
                USAGE_ERROR,
                f"No session {session_id!r} in this process: start one with session/new "
                "or load a stored one with session/load.",
            )
        return session

    def _open(self, cwd: str, mcp_servers: list[ClientMcpServer] | None, method: str) -> AcpSession:
        """A session in ``cwd`` under the settings for that folder, its model checked now.

        Raises:
            RequestError: the folder, the config, the MCP servers or the model are not usable; says why.
        """
        if self._client is None:
            raise RequestError(RUN_ERROR, "not connected")
        try:
            settings = self._settings_for(cwd, method)
            servers = mcp_servers_config(mcp_servers or [])
            _check_model(settings)
            return AcpSession(self._client, settings, mcp_servers=servers)
        except ChrysalisError as exc:
            raise _request_error(exc) from exc

    def _settings_for(self, cwd: str, method: str) -> Settings:
        """The settings of a session in ``cwd``: the same sources as ``chrysalis serve``'s, read for that folder.

        Raises:
            UsageError: ``cwd`` is not an absolute path to a folder.
            ConfigError: a config file of that folder, or an env var, holds a bad value.
        """
        folder = Path(cwd)
        if not folder.is_absolute() or not folder.is_dir():
            raise UsageError(f"{method}: cwd {cwd!r} is not an absolute path to a folder; give the project's folder.")
        flags = {
            key: getattr(self.settings, key)
            for key, source in self.settings.sources.items()
            if source.startswith("flag ") and key != "workspace"
        }
        return load_settings(SettingFlags.from_mapping({**flags, "workspace": folder.resolve()}))


def _check_model(settings: Settings) -> None:
    """Fail at ``session/new`` rather than at the first prompt: a bad model name or a missing API key.

    Checked without building the model: its client's imports (pydantic-ai, openai) take seconds that
    the first prompt pays anyway, and the embedded model's weights are only looked for then.

    Raises:
        UsageError: the model name is bad, or its provider needs a key that is not set.
    """
    from chrysalis.errors import MissingCredentialsError
    from chrysalis.llm.names import ModelName
    from chrysalis.llm.providers import KEY_VARS, openai_endpoint

    if settings.model == "auto":
        return  # AgentSession checked the candidates
    name = ModelName.parse(settings.model, base_url=settings.base_url)
    if name.provider == "anthropic":
        if not os.environ.get(KEY_VARS["anthropic"], "").strip():
            raise MissingCredentialsError("anthropic", KEY_VARS["anthropic"])
    elif name.provider != "local":
        openai_endpoint(name, settings.base_url, os.environ)


def _request_error(exc: ChrysalisError) -> RequestError:
    """Our error as a JSON-RPC error: its message (which says what to fix), its kind and exit code as data."""
    code = USAGE_ERROR if isinstance(exc, UsageError) else RUN_ERROR
    return RequestError(code, str(exc), {"reason": type(exc).__name__, "exit_code": exc.exit_code})


def serve_acp(settings: Settings) -> int:
    """Serve ACP on stdin/stdout until the client closes the connection; returns the exit code (0)."""
    return asyncio.run(_serve(settings))


async def _serve(settings: Settings) -> int:
    reader, writer = await _protocol_streams()
    agent = ChrysalisAcpAgent(settings)
    try:
        # The SDK's router answers "method not found" for the methods we leave out (list, modes, fork, ...).
        await run_agent(cast(Agent, agent), writer, reader)
    finally:
        agent.close()
    return 0


async def _protocol_streams() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Stdin and a private copy of stdout for the protocol; file descriptor 1 itself now points at stderr.

    A print, a library's banner or a C extension's log line would otherwise corrupt the JSON-RPC stream.
    """
    loop = asyncio.get_running_loop()
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    reader = asyncio.StreamReader(limit=50 * 1024 * 1024)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, protocol_out)
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)
