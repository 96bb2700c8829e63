"""Which workspace paths are plan and doc files (architect mode writes only these) and which are tests (protected).

``chrysalis.tools.policy`` decides with them and re-exports both.
"""

from __future__ import annotations

import fnmatch
from pathlib import PurePosixPath

__all__ = ["is_doc_path", "is_test_path"]

_DOC_PATTERNS = ("*.md", "*.markdown", "*.rst", "*.txt", "*.adoc", "docs/*", "doc/*", "plans/*")
_TEST_PATTERNS = (
    "test_*.py",
    "*_test.py",
    "tests/*",
    "test/*",
    "conftest.py",
    "*.test.*",
    "*.spec.*",
    "pytest.ini",
    "tox.ini",
)


def _matches(path: str, patterns: tuple[str, ...]) -> bool:
    pure = PurePosixPath(path.replace("\\", "/"))
    parts = pure.parts
    candidates = [pure.name, str(pure)] + ["/".join(parts[i:]) for i in range(len(parts))]
    return any(fnmatch.fnmatch(c, pattern) for c in candidates for pattern in patterns)


def is_doc_path(path: str) -> bool:
    """Plan and documentation files: the only writes allowed in architect mode."""
    return _matches(path, _DOC_PATTERNS)


def is_test_path(path: str) -> bool:
    """Test files, which the agent may not edit to make tests pass."""
    return _matches(path, _TEST_PATTERNS)
