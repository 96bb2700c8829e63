"""Shell completion: the scripts for bash, zsh and fish, installing them, and the completion protocol itself."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import assert_clean_error, chrysalis

HEAVY = ("pydantic_ai", "llama_cpp", "openai", "anthropic", "sqlite3", "cryptography", "sqlalchemy", "rdflib", "mcp")


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_show_completion_prints_the_named_shells_script(shell: str) -> None:
    done = chrysalis("--show-completion", shell)
    assert done.returncode == 0, done.stderr
    assert f"_CHRYSALIS_COMPLETE=complete_{shell}" in done.stdout
    first = {"bash": "_chrysalis_completion() {", "zsh": "#compdef chrysalis", "fish": "complete --command chrysalis"}
    assert done.stdout.startswith(first[shell])


def test_an_unknown_shell_is_a_clean_error_listing_the_known_ones() -> None:
    done = chrysalis("--show-completion", "tcsh")
    assert_clean_error(done, 2, "'tcsh'", "bash, zsh, fish", "chrysalis --show-completion bash")


@pytest.mark.parametrize(
    ("shell", "written", "rc_file", "rc_line"),
    [
        ("bash", ".bash_completions/chrysalis.sh", ".bashrc", "source '{home}/.bash_completions/chrysalis.sh'"),
        ("zsh", ".zfunc/_chrysalis", ".zshrc", "fpath+=~/.zfunc; autoload -Uz compinit; compinit"),
        ("fish", ".config/fish/completions/chrysalis.fish", None, None),
    ],
)
def test_install_completion_writes_the_script_where_the_shell_reads_it(
    tmp_path: Path, shell: str, written: str, rc_file: str | None, rc_line: str | None
) -> None:
    done = chrysalis("--install-completion", shell, env={"HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert f"{shell} completion installed in {tmp_path / written}" in done.stdout
    assert f"_CHRYSALIS_COMPLETE=complete_{shell}" in (tmp_path / written).read_text()
    if rc_file is not None and rc_line is not None:
        assert rc_line.format(home=tmp_path) in (tmp_path / rc_file).read_text()


def test_help_lists_the_completion_flags() -> None:
    done = chrysalis("--help")
    assert "--install-completion" in done.stdout and "--show-completion" in done.stdout


def complete(env: dict[str, str]) -> list[str]:
    done = chrysalis(env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_bash_completes_subcommands() -> None:
    assert complete({"_CHRYSALIS_COMPLETE": "complete_bash", "COMP_WORDS": "chrysalis se", "COMP_CWORD": "1"}) == [
        "serve",
        "sessions",
    ]


def test_bash_completes_a_subgroups_commands_and_the_values_of_mode_and_level() -> None:
    def bash(words: str) -> list[str]:
        env = {
            "_CHRYSALIS_COMPLETE": "complete_bash",
            "COMP_WORDS": words,
            "COMP_CWORD": str(len(words.split(" ")) - 1),
        }
        return complete(env)

    assert bash("chrysalis models f") == ["fetch"]
    assert bash("chrysalis run --mode a") == ["ask", "architect"]
    assert bash("chrysalis run --level ") == ["0", "1", "2", "3"]
    assert bash("chrysalis run --mo") == ["--model", "--mode"]


def test_zsh_and_fish_complete_subcommands_with_their_help() -> None:
    zsh = "\n".join(complete({"_CHRYSALIS_COMPLETE": "complete_zsh", "_TYPER_COMPLETE_ARGS": "chrysalis se"}))
    assert '"serve":"Serve the agent' in zsh and '"sessions":"Conversations' in zsh
    fish = complete(
        {
            "_CHRYSALIS_COMPLETE": "complete_fish",
            "_TYPER_COMPLETE_FISH_ACTION": "get-args",
            "_TYPER_COMPLETE_ARGS": "chrysalis se",
        }
    )
    assert [line.split("\t")[0] for line in fish] == ["serve", "sessions"]


def test_completing_does_not_import_heavy_libraries() -> None:
    code = (
        "import os, sys; from chrysalis.cli.app import main\n"
        "os.environ.update(_CHRYSALIS_COMPLETE='complete_bash', COMP_WORDS='chrysalis se', COMP_CWORD='1')\n"
        "try:\n    main([])\nexcept SystemExit:\n    pass\n"
        f"print('HEAVY', [m for m in {HEAVY!r} if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "HEAVY []" in done.stdout and "serve" in done.stdout


def test_when_the_shell_cannot_be_told_the_error_says_how_to_name_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import typer._completion_shared

    from chrysalis.cli.completion import completion_command
    from chrysalis.errors import UsageError

    monkeypatch.setattr(typer._completion_shared, "_get_shell_name", lambda: None)
    with pytest.raises(UsageError, match=r"Could not tell which shell.*chrysalis --install-completion bash"):
        completion_command(["--install-completion"])
