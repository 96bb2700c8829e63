"""The closed vocabularies settings draw from: modes, security levels, priorities, tool profiles, sinks."""

from __future__ import annotations

from typing import Literal, get_args

__all__ = [
    "DEFAULT_MODEL",
    "EMBEDDING_PROVIDERS",
    "LEVEL_NAMES",
    "MIN_SUBSCRIPTION_CHARS",
    "MODES",
    "PERMISSION_ACTIONS",
    "PRIORITY_KEYWORDS",
    "PROFILES",
    "TELEMETRY",
    "TOOL_PROFILES",
    "VOTING_CHOICES",
    "Mode",
]

Mode = Literal["ask", "architect", "code", "semantic"]
MODES: tuple[Mode, ...] = get_args(Mode)
TELEMETRY: tuple[str, ...] = ("off", "console", "otlp")
"""Where run spans go (``Settings.telemetry``)."""
DEFAULT_MODEL = "local:qwen2.5-coder-1.5b"
EMBEDDING_PROVIDERS = ("openai", "openrouter", "ollama")
"""The ``provider:`` prefixes the ``embeddings`` setting accepts: those that speak OpenAI's ``/embeddings``."""
PRIORITY_KEYWORDS = ("fast", "cheap", "best", "verbose", "compact")
VOTING_CHOICES = ("auto", "none", "low", "medium", "high", "critical")
"""The ``voting`` setting: ``auto`` (the priority's level) or one of seed 001's levels (``chrysalis.voting.LEVELS``)."""
MIN_SUBSCRIPTION_CHARS = 1000
"""The smallest ``subscription_chars`` other than 0: a heading, a little content and the cut marker."""
LEVEL_NAMES = {0: "read-only", 1: "sandboxed read", 2: "write", 3: "shell"}
"""The security levels (seed 000); ``chrysalis.tools.policy`` says what each allows."""
TOOL_PROFILES: dict[str, tuple[str, ...] | None] = {
    "all": None,
    "coder": ("read_file", "list_dir", "grep", "edit_file", "write_file", "run_tests"),
    "editor": ("read_file", "list_dir", "find", "grep", "edit_file", "write_file", "apply_patch"),
    "researcher": ("read_file", "list_dir", "find", "grep", "web_search", "web_fetch"),
    "vcs": ("git_status", "git_diff", "git_log", "git_commit"),
}
"""Named tool sets (seed 000's sub-agent profiles), by tool name; ``None`` means every built-in tool."""
PROFILES = ("auto", *TOOL_PROFILES)
"""What the ``profile`` setting accepts: a tool profile, or ``auto`` (learned; ``coder`` for local models)."""
PERMISSION_ACTIONS = ("allow", "ask", "deny")
"""What a permission rule does with a matching call (``[permissions]`` lists)."""
