"""Secrets never leave through a run's exits (issue 12, item 5): the model, events, traces, stores, ``--json``.

A workspace holds a ``.env`` with a provider key, an ``id_rsa`` private key and a note with the
value of a secret environment variable. A scripted model reads them all (with the file tools and
with ``shell``); nothing it receives, and nothing Chrysalis writes down, holds any of them.
"""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessagesTypeAdapter

from chrysalis.agent.session import AgentSession
from chrysalis.cli.render import JsonRenderer
from chrysalis.config import load_settings
from chrysalis.events import Event, Start, ToolResultEvent
from chrysalis.llm.testing import ScriptedModel, ScriptedOpenAIServer, ScriptedReply, final, tool
from chrysalis.redact import current
from chrysalis.stores import Stores
from chrysalis.stores.context import Context
from chrysalis.tools.base import ToolContext, ToolResult, ToolSpec
from chrysalis.tools.files import edit_file, read_file, write_file
from chrysalis.tools.patch import apply_patch
from tests.helpers import chrysalis, scripted

OPENAI_KEY = "sk-proj-Zq3xT9bLm2Vw8Rk5Np7Hs4Jd6Fg1Yc0Ua9Ei3Ob"
KEY_BODY = "MIIEowIBAAKCAQEAzq3xT9bLm2Vw8Rk5Np7Hs4Jd6Fg1Yc0Ua9Ei3Ob"
DEPLOY_TOKEN = "dpl-Qw8Er5Ty2Ui9Op4As7"
GITHUB = "ghp_4fJk9Lm2Np7Qr5St8Uv1Wx3Yz6Ab0Cd9Ef2Gh"
TOOL_SECRETS = (OPENAI_KEY, KEY_BODY, DEPLOY_TOKEN)
"""What the tools can read: no model request and no event may hold them."""
SECRETS = (*TOOL_SECRETS, GITHUB)
"""Also what the scripted model says in its answer: no store and no ``--json`` line may hold any."""
ENV = f"OPENAI_API_KEY={OPENAI_KEY}\nDEBUG=1\n"


@pytest.fixture
def leaky(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The workspace with secrets in files, and one in the environment (whose value also sits in a note)."""
    (workspace / ".env").write_text(ENV)
    (workspace / "id_rsa").write_text(f"-----BEGIN RSA PRIVATE KEY-----\n{KEY_BODY}\n-----END RSA PRIVATE KEY-----\n")
    (workspace / "notes.txt").write_text(f"deploy with {DEPLOY_TOKEN}\n")
    monkeypatch.setenv("DEPLOY_TOKEN", DEPLOY_TOKEN)
    return workspace


def assert_no_secret(where: str, data: str | bytes, secrets: tuple[str, ...] = SECRETS) -> None:
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    for secret in secrets:
        assert secret not in text, f"{secret!r} leaked into {where}"


def stored_bytes(home: Path) -> bytes:
    """Everything the stores wrote: the database with its write-ahead log, and the trace file."""
    return b"".join(path.read_bytes() for path in sorted(home.iterdir()) if path.is_file())


def test_a_run_that_reads_secrets_leaks_none(leaky: Path, chrysalis_home: Path) -> None:
    script = ScriptedModel(
        [
            tool("read_file", path=".env"),
            tool("read_file", path="id_rsa"),
            tool("shell", command="cat notes.txt; echo token=$DEPLOY_TOKEN"),
            final(f"Done. I also found {GITHUB} in an old commit."),
        ]
    )
    events: list[Event] = []
    settings = load_settings({"workspace": leaky, "level": 2, "yes": True})
    session = AgentSession(settings, model=script.model(), on_event=events.append)
    result = asyncio.run(session.run("look at the configuration"))
    session.close()

    for messages in script.seen:
        assert_no_secret("a model request", ModelMessagesTypeAdapter.dump_json(messages))
    env_read, key_read, shell = (str(r["result"]) for r in script.tool_returns())
    assert "OPENAI_API_KEY=[REDACTED:openai-key]" in env_read and "DEBUG=1" in env_read
    assert "[REDACTED:private-key]" in key_read
    assert "deploy with [REDACTED:DEPLOY_TOKEN]" in shell and shell.endswith(
        "token="
    )  # commands never get the variable
    results = [e for e in events if isinstance(e, ToolResultEvent)]
    assert "[REDACTED:openai-key]" in str(results[0].result)
    # The event stream in the process is the run as it is: a library caller gets the answer as given.
    assert_no_secret("the events", json.dumps([e.to_json() for e in events], default=str), TOOL_SECRETS)
    assert result.output is not None and GITHUB in result.output
    assert_no_secret("the stores", stored_bytes(chrysalis_home))
    with Stores.open(chrysalis_home) as stores:
        assert "[REDACTED:github-token]" in json.dumps(stores.traces.events(result.run_id))
        (conversation,) = stores.sessions.recent(leaky)
        saved = stores.sessions.messages(conversation.id)
    assert saved and "[REDACTED:github-token]" in json.dumps(saved)


def test_json_lines_and_traces_redact_what_a_task_or_answer_holds(chrysalis_home: Path) -> None:
    start = Start(
        run_id="r1",
        task=f"rotate {GITHUB}",
        model="m",
        mode="code",
        level=2,
        workspace="/w",
        task_type="other",
        profile="all",
        profile_reason="default",
    )
    out = io.StringIO()
    JsonRenderer(out)(start)
    line = json.loads(out.getvalue())
    assert line["task"] == "rotate [REDACTED:github-token]" and line["type"] == "start"
    with Stores.open(chrysalis_home) as stores:
        stores.traces.record("r1", start.to_json())
        stores.traces.record("r1", {"type": "final", "output": f"key {OPENAI_KEY}", "success": True})
        assert stores.traces.events("r1")[1]["output"] == "key [REDACTED:openai-key]"
        assert stores.traces.runs()[0].task == "rotate [REDACTED:github-token]"
    assert_no_secret("the stores", stored_bytes(chrysalis_home))


def test_a_saved_context_is_redacted_and_keeps_its_shape(chrysalis_home: Path) -> None:
    history = ({"kind": "request", "parts": [{"part_kind": "user-prompt", "content": f"use {OPENAI_KEY}"}]},)
    with Stores.open(chrysalis_home) as stores:
        version = stores.context.save(Context(system=f"deploy token {GITHUB}", history=history), "w")
        loaded = stores.context.load("w", version)
    assert loaded.system == "deploy token [REDACTED:github-token]"
    assert loaded.history == (
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "use [REDACTED:openai-key]"}]},
    )
    assert_no_secret("the stores", stored_bytes(chrysalis_home))


def test_chrysalis_run_json_prints_and_keeps_no_secret(leaky: Path, chrysalis_home: Path) -> None:
    script = [
        ScriptedReply.tool_call("read_file", {"path": ".env"}),
        ScriptedReply.tool_call("read_file", {"path": "id_rsa"}),
        ScriptedReply.tool_call("shell", {"command": "cat notes.txt"}),
        ScriptedReply(text=f"Done; {GITHUB} should be revoked."),
    ]
    with ScriptedOpenAIServer(script) as server:
        done = chrysalis(
            "run",
            f"check the config, the old token was {GITHUB}",
            "--json",
            *scripted(server.base_url),
            "--level",
            "2",
            "--yes",
            "--workspace",
            str(leaky),
            env={"OPENAI_API_KEY": OPENAI_KEY},  # the provider key: in the request's header, never in a body
        )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert [e["type"] for e in events].count("tool_result") == 3
    assert_no_secret("--json output", done.stdout + done.stderr)
    assert "[REDACTED:github-token]" in events[0]["task"] and "[REDACTED:github-token]" in events[-1]["output"]
    # The model gets the task as the user wrote it, and never what the tools read.
    assert_no_secret("the model's requests", json.dumps(server.requests), TOOL_SECRETS)
    assert "OPENAI_API_KEY=[REDACTED:OPENAI_API_KEY]" in json.dumps(server.requests)  # named after the variable
    assert_no_secret("the stores", stored_bytes(chrysalis_home))


# -- Writing a marker back is refused, so a secret is never replaced by its marker ----------------


def run_tool(spec: ToolSpec, ws: Path, **args: str) -> ToolResult:
    return spec(args, ToolContext(workspace=ws))


def test_writing_back_what_the_model_saw_is_refused(leaky: Path) -> None:
    seen = current().text(str(read_file({"path": ".env"}, ToolContext(workspace=leaky)).result))
    assert "1| OPENAI_API_KEY=[REDACTED:openai-key]" in seen  # what the model saw; it writes the file back:
    written = run_tool(write_file, leaky, path=".env", content="OPENAI_API_KEY=[REDACTED:openai-key]\nDEBUG=0\n")
    assert not written.ok and written.error is not None
    assert "Not written" in written.error and "[REDACTED:openai-key]" in written.error
    assert (leaky / ".env").read_text() == ENV
    new_file = run_tool(write_file, leaky, path="copy.env", content="KEY=[REDACTED:OPENAI_API_KEY]\n")
    assert not new_file.ok and not (leaky / "copy.env").exists()


def test_edits_around_a_secret_work_and_edits_through_it_say_why_not(leaky: Path) -> None:
    assert run_tool(edit_file, leaky, path=".env", old_text="DEBUG=1", new_text="DEBUG=0").ok
    assert (leaky / ".env").read_text() == ENV.replace("DEBUG=1", "DEBUG=0")
    through = run_tool(edit_file, leaky, path=".env", old_text="OPENAI_API_KEY=[REDACTED:openai-key]", new_text="X=1")
    assert not through.ok and through.error is not None and "can never match" in through.error
    adding = run_tool(edit_file, leaky, path=".env", old_text="DEBUG=0", new_text="TOKEN=[REDACTED:secret]")
    assert not adding.ok and adding.error is not None and "Not written" in adding.error
    assert (leaky / ".env").read_text() == ENV.replace("DEBUG=1", "DEBUG=0")


def test_patches_that_hold_a_marker_are_refused(leaky: Path) -> None:
    context = "--- a/.env\n+++ b/.env\n@@ -1,2 +1,2 @@\n OPENAI_API_KEY=[REDACTED:openai-key]\n-DEBUG=1\n+DEBUG=0\n"
    refused = run_tool(apply_patch, leaky, patch=context)
    assert not refused.ok and refused.error is not None and "can never match" in refused.error
    added = "--- a/.env\n+++ b/.env\n@@ -2 +2,2 @@\n DEBUG=1\n+TOKEN=[REDACTED:secret]\n"
    refused = run_tool(apply_patch, leaky, patch=added)
    assert not refused.ok and refused.error is not None and "Not written" in refused.error
    created = "--- /dev/null\n+++ b/new.env\n@@ -0,0 +1 @@\n+KEY=[REDACTED:secret]\n"
    assert not run_tool(apply_patch, leaky, patch=created).ok
    assert (leaky / ".env").read_text() == ENV and not (leaky / "new.env").exists()


def test_a_file_that_holds_a_marker_as_text_may_keep_it(workspace: Path) -> None:
    doc = workspace / "REDACTION.md"
    doc.write_text("Secrets show as [REDACTED:openai-key].\n")
    rewritten = run_tool(
        write_file, workspace, path="REDACTION.md", content="Secrets look like [REDACTED:openai-key].\n"
    )
    assert rewritten.ok
    assert run_tool(edit_file, workspace, path="REDACTION.md", old_text="look like", new_text="show as").ok
    assert doc.read_text() == "Secrets show as [REDACTED:openai-key].\n"


def test_a_model_that_writes_back_a_redacted_env_keeps_the_secret(leaky: Path) -> None:
    script = ScriptedModel(
        [
            tool("read_file", path=".env"),
            tool("write_file", path=".env", content="OPENAI_API_KEY=[REDACTED:openai-key]\nDEBUG=0\n"),
            final("Set DEBUG=0."),
        ]
    )
    settings = load_settings({"workspace": leaky, "level": 2, "yes": True})
    session = AgentSession(settings, model=script.model(), on_event=lambda _event: None)
    asyncio.run(session.run("turn debugging off in .env"))
    session.close()
    refusal = script.tool_returns()[1]
    assert refusal["ok"] is False and "[REDACTED:openai-key]" in refusal["error"]
    assert (leaky / ".env").read_text() == ENV


def test_the_final_checks_output_reaches_the_model_redacted(workspace: Path) -> None:
    """A failing test that prints a key: the check's output goes back to the model, without the key."""
    key = "sk-proj-" + "Zq4Rt7Yu1Io3Pa5Sd8Fg2Hj6Kl9Xc0Vb"
    (workspace / "tests" / "test_calc.py").write_text(f"def test_key():\n    print({key!r})\n    assert False\n")
    script = ScriptedModel([tool("write_file", path="notes.txt", content="x\n"), final("done")])
    settings = load_settings({"workspace": workspace, "level": 3, "yes": True, "priority": "cheap"})
    session = AgentSession(settings, model=script.model())
    asyncio.run(session.run("make the tests pass"))
    session.close()
    sent = "\n".join(repr(message) for message in script.seen[-1])
    assert "Not done: Chrysalis ran the tests" in sent
    assert key not in sent and "[REDACTED:openai-key]" in sent
