from __future__ import annotations

import dataclasses
import time

import pytest

from chrysalis.stores import Context, Stores


def test_load_without_saves_gives_a_fresh_context(stores: Stores) -> None:
    assert stores.context.load() == Context()
    assert stores.context.versions() == []


def test_round_trip_of_every_field(stores: Stores) -> None:
    ctx = Context(
        system="You fix bugs.",
        memory="the bug is in calc.py",
        tool_hints="use narrow globs",
        mode="architect",
        priority="I need accuracy but I'm on a budget",
        history=({"role": "user", "content": "hi\nthere"}, {"role": "assistant", "content": "héllo", "n": [1, 2]}),
        compacted_summary="earlier: read files",
    )
    version = stores.context.save(ctx)
    assert version == 1
    assert stores.context.load() == dataclasses.replace(ctx, version=1)


def test_saves_append_versions_and_load_returns_the_latest(stores: Stores) -> None:
    before = time.time()
    assert stores.context.save(Context(system="v1")) == 1
    assert stores.context.save(Context(system="v2")) == 2
    loaded = stores.context.load()
    assert (loaded.system, loaded.version) == ("v2", 2)
    versions = stores.context.versions()
    assert [number for number, _ in versions] == [1, 2]
    assert all(before <= created <= time.time() for _, created in versions)
    assert versions[0][1] <= versions[1][1]


def test_older_versions_stay_readable(stores: Stores) -> None:
    stores.context.save(Context(system="v1"))
    stores.context.save(Context(system="v2"))
    assert stores.context.load(version=1).system == "v1"
    with pytest.raises(KeyError, match="no version 7"):
        stores.context.load(version=7)


def test_saving_a_loaded_context_ignores_its_old_version(stores: Stores) -> None:
    stores.context.save(Context(system="v1"))
    loaded = stores.context.load()
    assert stores.context.save(dataclasses.replace(loaded, memory="more")) == 2


def test_names_are_independent(stores: Stores) -> None:
    stores.context.save(Context(system="a"), name="agent-a")
    stores.context.save(Context(system="b"), name="agent-b")
    stores.context.save(Context(system="b2"), name="agent-b")
    assert stores.context.load("agent-a").version == 1
    assert stores.context.load("agent-b").system == "b2"
    assert stores.context.load().version == 0
    assert stores.context.names() == ["agent-a", "agent-b"]


def test_unknown_stored_keys_are_ignored() -> None:
    ctx = Context.from_json('{"system": "s", "from_the_future": 1}', version=3)
    assert ctx == Context(system="s", version=3)
