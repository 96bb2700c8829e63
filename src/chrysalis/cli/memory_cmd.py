"""``chrysalis memory list | search | forget | reindex``: the person's view of what the agent remembered.

``list`` shows memories newest first (``--scope workspace``: this workspace's, ``global``, or
``all``: every scope); ``search`` ranks this workspace's and the global memories against a query,
as the ``recall`` tool does, and says how it ranked them; ``forget ID`` deletes one, whatever its
scope; ``reindex`` gives every memory a vector of the embedder the ``embeddings`` setting names
(after choosing another one, or once a failing one works again). A bad ``--scope``, ``-k`` or id,
an unknown id, and an embedder that cannot be used, exit 2 with the fix.
"""

from __future__ import annotations

import json
from pathlib import Path

from rich.markup import escape

from chrysalis.capabilities.memory.tools import open_memory, run_scopes, show_hit
from chrysalis.cli.scoped import SCOPES, check_scope, listing_console, scopes_of, settings_for
from chrysalis.config import SettingFlags
from chrysalis.errors import EXIT_OK, ModelError, UsageError
from chrysalis.stores import MemoryHit, Stores
from chrysalis.stores.memory import MAX_K

__all__ = ["SCOPES", "memory_forget_command", "memory_list_command", "memory_reindex_command", "memory_search_command"]


def memory_list_command(flags: SettingFlags, *, scope: str, json_output: bool) -> int:
    """Print the memories of ``scope`` (workspace, global or all), newest first.

    Raises:
        UsageError: ``scope`` is not one of ``SCOPES``.
    """
    check_scope(scope)
    settings = settings_for(flags)
    scopes = scopes_of(scope, settings.workspace)
    with Stores.open(settings.home) as stores:
        memories = stores.memory.list_memories(scopes)
    if json_output:
        print(json.dumps({"memories": [memory.to_json() for memory in memories]}))
        return EXIT_OK
    out = listing_console()
    if not memories:
        out.print(f"No memories{'' if scope == 'all' else ' in the ' + scope + ' scope'} yet.")
        return EXIT_OK
    for memory in memories:
        out.print(escape(show_hit(MemoryHit(memory, 0.0), settings.workspace)))
    return EXIT_OK


def memory_search_command(flags: SettingFlags, query: str, *, k: int, json_output: bool) -> int:
    """Print the ``k`` memories of this workspace and the global scope that best match ``query``.

    Raises:
        UsageError: an empty query, or ``k`` outside 1..50.
    """
    if not query.strip():
        raise UsageError(
            "The query is empty: say in a few words what to look for, e.g. `chrysalis memory search tests`."
        )
    if not 1 <= k <= MAX_K:
        raise UsageError(f"-k {k} is out of range: give a number of memories from 1 to {MAX_K}.")
    settings = settings_for(flags)
    scopes = run_scopes(settings.workspace)
    with Stores.open(settings.home) as stores:
        memory = open_memory(stores, settings)
        found = memory.recall(query, scopes, k)
        # Hybrid: the embedder named its space for the query, so counting against it cannot fail.
        stale = memory.without_vectors(scopes) if found.ranking == "hybrid" else 0
        space = memory.embedder.name if stale and memory.embedder is not None else ""
    if json_output:
        hits = [hit.to_json() for hit in found.hits]
        print(json.dumps({"ranking": found.ranking, "note": found.note, "without_vectors": stale, "hits": hits}))
        return EXIT_OK
    out = listing_console()
    for hit in found.hits:
        out.print(escape(show_hit(hit, settings.workspace)))
    how = "words and meaning (hybrid)" if found.ranking == "hybrid" else f"words only (fts): {found.note}"
    if stale:
        how += (
            f"; {stale} of these memories have no vector of {space} yet (kept by another embedder, or without "
            "one), so only their words rank them: `chrysalis memory reindex` embeds them"
        )
    out.print(f"{len(found.hits) or 'No'} memories found; ranked by {escape(how)}.")
    return EXIT_OK


def memory_forget_command(memory_id: str, *, json_output: bool, home: Path) -> int:
    """Delete the memory with this id.

    Raises:
        UsageError: the id is not a number, or no memory has it.
    """
    try:
        number = int(memory_id)
    except ValueError:
        raise UsageError(
            f"{memory_id!r} is not a memory id: ids are numbers, as `chrysalis memory list` shows them in brackets."
        ) from None
    with Stores.open(home) as stores:
        gone = stores.memory.forget(number)
    if gone is None:
        raise UsageError(f"No memory has the id {memory_id}; `chrysalis memory list --scope all` shows every id.")
    if json_output:
        print(json.dumps({"forgot": gone.to_json()}))
    else:
        listing_console().print(escape(f"Forgot memory {gone.id} ({gone.scope}): {gone.text}"))
    return EXIT_OK


def memory_reindex_command(flags: SettingFlags, *, everything: bool, json_output: bool) -> int:
    """Embed every memory that has no vector of the configured embedder (every memory with ``everything``).

    Raises:
        UsageError: the embedder cannot be used (no key, no model, an endpoint that fails); the
            memories embedded before it failed keep their vectors.
    """
    settings = settings_for(flags)
    done = 0

    def advance(count: int) -> None:
        nonlocal done
        done = count

    with Stores.open(settings.home) as stores:
        memory = open_memory(stores, settings)
        try:
            space = memory.embedder.name if memory.embedder is not None else ""
            memory.reindex(everything=everything, progress=advance)
        except ModelError as exc:
            kept = f" {done} memories were embedded before it failed; they keep their vectors." if done else ""
            raise UsageError(
                f"Cannot reindex the memories: {exc}{kept} No memory is lost: those without its vectors are found "
                "by their words."
            ) from exc
        total = len(stores.memory.list_memories())
        problem = stores.db.vectors.problem
    if json_output:
        print(json.dumps({"embedded": done, "memories": total, "space": space}))
        return EXIT_OK
    lines = [
        f"Embedded {done} of {total} memories with {space} ({'all' if everything else 'those without its vectors'})."
    ]
    if problem:
        lines.append(f"Recall ranks by words alone here ({problem}); the vectors are kept for where it loads.")
    listing_console().print(escape("\n".join(lines)))
    return EXIT_OK
