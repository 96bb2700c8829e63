"""Shell completion: ``chrysalis --show-completion [SHELL]`` and ``chrysalis --install-completion [SHELL]``.

Typer's own two flags (``add_completion``) take no value: they guess the shell from the parent
process, print nothing useful when the guess fails (in CI, under ``sudo``, from an editor) and
silently ignore a shell named after them, so ``--show-completion fish`` run from bash printed
bash's script. ``main`` hands a command line that is only one of these flags, with or without a
shell, to ``completion_command`` first, which honours the shell given and says how to give one when
none can be guessed. The scripts, the install locations (``~/.bash_completions/chrysalis.sh`` sourced
from ``~/.bashrc``; ``~/.zfunc/_chrysalis``; ``~/.config/fish/completions/chrysalis.fish``) and the
completion protocol itself (``_CHRYSALIS_COMPLETE=complete_bash`` …) stay typer's, pinned in
pyproject.toml, so the help lists the flags and completing a word costs only the typer import.
"""

from __future__ import annotations

from chrysalis.errors import UsageError

__all__ = ["COMPLETE_VAR", "FLAGS", "SHELLS", "completion_command", "is_completion_request"]

SHELLS = ("bash", "zsh", "fish", "powershell", "pwsh")
FLAGS = ("--show-completion", "--install-completion")
PROG = "chrysalis"
COMPLETE_VAR = "_CHRYSALIS_COMPLETE"
"""The variable the shell scripts set to ask ``chrysalis`` for completions (click's protocol)."""


def is_completion_request(argv: list[str]) -> bool:
    """Whether the command line is ``--show-completion`` or ``--install-completion``, maybe with a shell."""
    return 1 <= len(argv) <= 2 and argv[0] in FLAGS


def completion_command(argv: list[str]) -> int:
    """Print the completion script for the shell (``--show-completion``) or install it (``--install-completion``).

    Raises:
        UsageError: The shell named is not one typer writes scripts for, or none was named and the
            running shell cannot be told.
    """
    flag, shell = argv[0], (argv[1] if len(argv) > 1 else _detected_shell(argv[0]))
    if shell not in SHELLS:
        raise UsageError(
            f"Unknown shell {shell!r} for {flag}: give one of {', '.join(SHELLS)}, e.g. chrysalis {flag} bash."
        )
    from typer._completion_shared import get_completion_script, install

    if flag == "--show-completion":
        print(get_completion_script(prog_name=PROG, complete_var=COMPLETE_VAR, shell=shell))
        return 0
    shell, path = install(shell=shell, prog_name=PROG, complete_var=COMPLETE_VAR)
    print(f"{shell} completion installed in {path}; it takes effect in a new shell.")
    return 0


def _detected_shell(flag: str) -> str:
    from typer._completion_shared import _get_shell_name

    shell = _get_shell_name()
    if shell is None:
        raise UsageError(
            f"Could not tell which shell runs chrysalis; name it: chrysalis {flag} bash (or {', '.join(SHELLS[1:])})."
        )
    return shell
