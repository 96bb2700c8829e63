"""The REPL's line handling, without a terminal: tasks, slash commands and their bad inputs."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from chrysalis.agent.session import AgentSession
from chrysalis.cli.repl import SLASH_COMMANDS, Repl
from chrysalis.config import load_settings
from chrysalis.llm.testing import ScriptedModel, final, tool


def make_repl(workspace: Path, script: ScriptedModel, **flags: object) -> tuple[Repl, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=200, highlight=False)
    settings = load_settings({"workspace": workspace, **flags})
    return Repl(AgentSession(settings, model=script.model()), console), out


def test_design_slash_commands_are_all_there() -> None:
    expected = (
        "/help /mode /level /priority /model /context /compact /undo /cost /evolve /resume /fork /subscribe "
        "/unsubscribe /exit"
    ).split()
    assert list(SLASH_COMMANDS) == expected  # DESIGN.md's, and issue 16's /resume, /fork, /subscribe, /unsubscribe


def test_resume_lists_and_picks_a_session_and_fork_branches_this_one(workspace: Path) -> None:
    first, _ = make_repl(workspace, ScriptedModel([final("one")]))
    first.handle("the first task")
    first_id = first.session.session_id
    first.session.close()
    repl, out = make_repl(workspace, ScriptedModel([final("two")]))
    repl.handle("/fork")
    assert "Nothing to fork yet" in out.getvalue()
    repl.handle("/resume")
    assert f"{first_id}" in out.getvalue() and "'the first task'" in out.getvalue()
    repl.handle(f"/resume {first_id}")
    assert repl.session.session_id == first_id and len(repl.session.history) == 2
    repl.handle("/fork")
    assert repl.session.session_id != first_id and f"forked session {first_id} into" in out.getvalue()
    repl.handle("/resume nope")
    assert "/resume nope: no session 'nope'" in out.getvalue()
    repl.session.close()


def test_a_task_runs_and_cost_and_context_show_real_numbers(workspace: Path) -> None:
    repl, out = make_repl(workspace, ScriptedModel([tool("read_file", path="calc.py"), final("It subtracts wrongly.")]))
    assert repl.handle("what does calc.py do?")
    assert repl.session.history
    repl.handle("/cost")
    repl.handle("/context")
    text = out.getvalue()
    tokens = repl.session.total_tokens
    assert tokens > 0 and f"session: {tokens} tokens" in text
    assert f"messages: {len(repl.session.history)}" in text


def test_mode_and_level_change_and_bad_values_are_explained(workspace: Path) -> None:
    repl, out = make_repl(workspace, ScriptedModel([final("ok")]))
    repl.handle("/mode ask")
    assert repl.session.settings.mode == "ask"
    repl.handle("/mode yolo")
    assert repl.session.settings.mode == "ask"
    assert "unknown mode 'yolo'" in out.getvalue()
    repl.handle("/level 9")
    assert repl.session.settings.level == 2
    assert "0 to 3" in out.getvalue()
    repl.handle("/level 3")
    assert repl.session.settings.level == 3


def test_undo_restores_the_last_task(workspace: Path) -> None:
    script = ScriptedModel([tool("edit_file", path="calc.py", old_text="a + b", new_text="a - b"), final("done")])
    repl, out = make_repl(workspace, script, level=3, yes=True, protect_tests=False)
    original = (workspace / "calc.py").read_text()
    repl.handle("change it")
    repl.handle("/undo")
    assert (workspace / "calc.py").read_text() == original
    assert "restored 1 file" in out.getvalue()


def test_unknown_command_and_exit(workspace: Path) -> None:
    repl, out = make_repl(workspace, ScriptedModel([final("ok")]))
    assert repl.handle("/nope")
    assert "Unknown command '/nope'" in out.getvalue()
    assert repl.handle("/undo")  # nothing to undo: explained, the session goes on
    assert "nothing" in out.getvalue().lower()
    assert repl.handle("/exit") is False


def test_subscribe_lists_adds_and_unsubscribe_removes_with_clear_errors(workspace: Path) -> None:
    script = ScriptedModel([final("ok")])
    repl, out = make_repl(workspace, script)
    repl.handle("/subscribe")
    assert "No subscriptions: /subscribe PATH" in out.getvalue()
    repl.handle("/subscribe calc.py")
    assert (
        "subscribed [1] calc.py: its fresh content goes into the prompt at the start of every task (stored with "
        "the session its first task starts)" in out.getvalue()
    )
    repl.handle("/subscribe memory:release steps")
    repl.handle("/subscribe docs/*.md")
    assert "warning: 'docs/*.md' matches no file now; kept" in out.getvalue()
    repl.handle("/subscribe ../etc/passwd")
    assert "/subscribe ../etc/passwd: '../etc/passwd' uses '..' to leave the workspace" in out.getvalue()
    repl.handle("/subscribe calc.py")
    assert "already subscribed as [1] calc.py" in out.getvalue()

    repl.handle("what does subtract do?")
    instructions = script.instructions[0]
    assert "[1] calc.py" in instructions and "return a + b" in instructions
    stored = repl.session.stores.subscriptions.active(repl.session.session_id or "")
    assert [s.label for s in stored] == ["calc.py", "memory:release steps", "docs/*.md"]

    repl.handle("/subscribe")
    listing = out.getvalue().rsplit("already subscribed", 1)[1]
    size = len((workspace / "calc.py").read_text())
    assert "[1] calc.py  modified " in listing and f"· {size:,} characters" in listing
    assert "[2] memory:release steps  no memory matches now · 0 characters" in listing
    assert "[3] docs/*.md  no file matches now · 0 characters" in listing
    assert f"{size:,} characters in all; a task's prompt takes up to 6,000 (subscription_chars)." in listing

    repl.handle("/fork")  # the fork's conversation keeps them, same ids
    assert "2 messages, 3 subscriptions (/subscribe lists them); session" in out.getvalue()
    repl.handle("/unsubscribe 7")
    assert (
        "/unsubscribe 7: no subscription 7 in this conversation (it has: [1] calc.py, [2] memory:release steps, "
        "[3] docs/*.md)" in out.getvalue()
    )
    repl.handle("/unsubscribe")
    assert "usage: /unsubscribe ID|all" in out.getvalue()
    repl.handle("/unsubscribe 2")
    assert "unsubscribed [2] memory:release steps" in out.getvalue()
    repl.handle("/unsubscribe all")
    assert "unsubscribed [1] calc.py" in out.getvalue() and "unsubscribed [3] docs/*.md" in out.getvalue()
    assert repl.session.conversation.subscriptions.active() == []
    repl.session.close()
