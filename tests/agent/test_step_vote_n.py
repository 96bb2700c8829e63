"""A voted step's redraws in one request (OpenAI's ``n``) where the server takes it; one by one where it does not."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Literal

from chrysalis.agent.session import AgentSession
from chrysalis.config import load_settings
from chrysalis.events import Event, StepVote
from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply

FILES = ("a.txt", "b.txt")


def writer(body: dict[str, Any]) -> ScriptedReply | str:
    """Two writes, then an answer. The first draw of each write says ``wrong``; every redraw (a seed) ``right``."""
    written = sum(message["role"] == "tool" for message in body["messages"])
    if written == len(FILES):
        return "Wrote both files."
    content = "right\n" if body.get("seed") else "wrong\n"
    return ScriptedReply.tool_call("write_file", {"path": FILES[written], "content": content})


def run(workspace: Path, n: Literal["ignore", "choices", "refuse"]) -> tuple[ScriptedOpenAIServer, list[Event]]:
    events: list[Event] = []
    with ScriptedOpenAIServer(writer, replay_redraws=False, n=n) as server:
        settings = load_settings(
            {"workspace": workspace, "model": "scripted", "base_url": server.base_url, "level": 2, "yes": True}
        )
        session = AgentSession(settings, on_event=events.append)
        try:
            asyncio.run(session.run("write the two files"))
        finally:
            session.close()
    return server, events


def test_a_server_that_takes_n_draws_a_votes_first_redraws_in_one_request(tmp_path: Path) -> None:
    server, events = run(tmp_path, "choices")
    # best votes at medium: 3 at first (the reply, then 2 redraws asked together), ahead by 2: one more alone.
    asked = [body for body in server.requests if body.get("seed")]
    assert [body.get("n") for body in asked] == [2, None, 2, None]
    votes = [e for e in events if isinstance(e, StepVote)]
    assert [v.samples for v in votes] == [4, 4]
    assert [sorted(v.candidates.values()) for v in votes] == [[1, 3], [1, 3]]  # wrong once, right three times
    assert [(tmp_path / f).read_text() for f in FILES] == ["right\n", "right\n"]


def test_a_server_that_refuses_n_is_asked_one_by_one_and_not_asked_for_n_again(tmp_path: Path) -> None:
    server, events = run(tmp_path, "refuse")
    with_n = [body for body in server.requests if body.get("n")]
    assert len(with_n) == 1  # refused once, for the first step's redraws; never asked again
    assert [v.samples for v in events if isinstance(v, StepVote)] == [4, 4]
    assert [(tmp_path / f).read_text() for f in FILES] == ["right\n", "right\n"]


def test_a_server_that_ignores_n_gives_one_redraw_and_the_rest_are_drawn_alone(tmp_path: Path) -> None:
    server, events = run(tmp_path, "ignore")
    assert [v.samples for v in events if isinstance(v, StepVote)] == [4, 4]
    assert sum(1 for body in server.requests if body.get("seed")) == 6  # per step: 1 asked with n, 2 alone
    assert [(tmp_path / f).read_text() for f in FILES] == ["right\n", "right\n"]
