"""The session store: messages appended per step, a shorter history replacing the stored one, ids by prefix."""

from __future__ import annotations

from pathlib import Path

import pytest

from chrysalis.stores import Stores, UnknownSession
from chrysalis.stores.sessions import TITLE_CHARS


def message(n: int) -> dict[str, object]:
    return {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": f"m{n}"}]}


def test_messages_are_appended_and_a_shorter_history_replaces_them(chrysalis_home: Path) -> None:
    with Stores.open(chrysalis_home) as stores:
        info = stores.sessions.create("/ws", "task")
        stored = stores.sessions.save_messages(info.id, [message(0), message(1)], stored=0)
        stored = stores.sessions.save_messages(info.id, [message(0), message(1), message(2)], stored=stored)
        texts = [m["parts"][0]["content"] for m in stores.sessions.messages(info.id)]
        assert stored == 3 and texts == ["m0", "m1", "m2"]
        grown = message(2) | {"parts": [{"part_kind": "user-prompt", "content": "m2+"}]}  # the last one grew
        stored = stores.sessions.save_messages(info.id, [message(0), message(1), grown, message(3)], stored=stored)
        assert [m["parts"][0]["content"] for m in stores.sessions.messages(info.id)] == ["m0", "m1", "m2+", "m3"]
        stores.sessions.save_messages(info.id, [message(9)], stored=stored)  # compacted
        assert stores.sessions.messages(info.id) == [message(9)]
    with Stores.open(chrysalis_home) as stores:  # and it lasts
        assert stores.sessions.get(info.id).messages == 1


def test_ids_resolve_by_unique_prefix_and_a_like_pattern_is_no_wildcard(chrysalis_home: Path) -> None:
    with Stores.open(chrysalis_home) as stores:
        first = stores.sessions.create("/ws", "one")
        assert stores.sessions.get(first.id[:4]).id == first.id
        with pytest.raises(UnknownSession, match="no session '%'"):
            stores.sessions.get("%")
        with pytest.raises(UnknownSession, match="no session ''"):
            stores.sessions.get("")
        second = stores.sessions.create("/ws", "two")
        common = next((i for i in range(12) if first.id[i] != second.id[i]), 12)
        if common:  # two random ids that share a first letter: that prefix is ambiguous
            with pytest.raises(UnknownSession, match="matches 2 sessions"):
                stores.sessions.get(first.id[:common])


def test_the_title_is_one_line_cut_short_and_latest_is_the_last_used(chrysalis_home: Path) -> None:
    with Stores.open(chrysalis_home) as stores:
        long = stores.sessions.create("/ws", "fix\n  the   bug " + "x" * 500)
        assert long.title.startswith("fix the bug x") and len(long.title) == TITLE_CHARS
        other = stores.sessions.create("/ws", "other")
        stores.sessions.add_run(long.id, steps=3, cost_usd=0.5)
        latest = stores.sessions.latest("/ws")
        assert latest is not None and latest.id == long.id and (latest.runs, latest.steps) == (1, 3)
        assert stores.sessions.latest("/elsewhere") is None
        assert [s.id for s in stores.sessions.recent("/ws")] == [long.id, other.id]
