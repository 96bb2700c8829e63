"""A persona with ``tools`` reads the workspace for its turn, through the one policy, and can change nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from tests.council.test_council_cli import cli, json_lines
from tests.helpers import scripted

READER = """priority = 0.95
mode = "can_interject"
prompt = "You are Rex. You read the files before you speak."
tools = "coder"
"""


class Rex:
    """Rex's agent turn: read notes.txt, then try to overwrite it, then answer with what it read."""

    def __init__(self) -> None:
        self.tools_offered: list[str] = []
        self.results: list[str] = []

    def __call__(self, body: dict[str, Any]) -> ScriptedReply | str:
        self.tools_offered = [tool["function"]["name"] for tool in body.get("tools") or []]
        self.results += [str(m.get("content")) for m in body["messages"] if m.get("role") == "tool"]
        if len(self.results) == 0:
            return ScriptedReply.tool_call("read_file", {"path": "notes.txt"})
        if len(self.results) == 1:
            return ScriptedReply.tool_call("write_file", {"path": "notes.txt", "content": "gone"})
        return "The notes say the cache must stay small."


def test_a_persona_with_tools_reads_the_workspace_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], chrysalis_home: Path, tmp_path: Path
) -> None:
    (chrysalis_home / "personas").mkdir()
    (chrysalis_home / "personas" / "rex.toml").write_text(READER)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("The cache must stay small.\n")
    model = Rex()
    with ScriptedOpenAIServer(model) as server:
        code, out, err = cli(
            capsys,
            "council",
            "Review the cache plan",
            *scripted(server.base_url, "m"),
            "--workspace",
            str(workspace),
            "--personas",
            "rex",
            "--turns",
            "1",
            "--json",
        )
    assert code == 0, err
    (turn,) = [e for e in json_lines(out) if e["type"] == "council_turn"]
    assert turn["persona"] == "rex" and "cache must stay small" in turn["text"]
    assert "read_file" in model.tools_offered and "write_file" not in model.tools_offered  # level 1, ask mode
    assert "The cache must stay small." in model.results[0]
    assert (workspace / "notes.txt").read_text() == "The cache must stay small.\n"
