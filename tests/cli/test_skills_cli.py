"""``chrysalis skills list | show | lint``: what they print, their exit codes, and clean errors for mistakes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chrysalis.cli.skills_cmd import skills_lint_command, skills_list_command, skills_show_command
from chrysalis.config import SettingFlags
from chrysalis.errors import UsageError
from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from tests.helpers import assert_clean_error, chrysalis, scripted

GOOD = "---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nThe body of {name}.\n"


def add_skill(root: Path, name: str, description: str = "Does a thing. Use when asked.", text: str = "") -> Path:
    path = root / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text or GOOD.format(name=name, description=description))
    return path


@pytest.fixture
def skills(workspace: Path, chrysalis_home: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A workspace skill ``deploy``, a user skill ``deploy`` it hides, and a user skill ``notes``; cwd = workspace."""
    project, user = workspace / ".chrysalis" / "skills", chrysalis_home / "skills"
    add_skill(project, "deploy", "Deploy this project. Use when asked to ship.")
    add_skill(user, "deploy", "Deploy anything.")
    add_skill(user, "notes", "Keep notes.")
    monkeypatch.chdir(workspace)
    return project, user


def test_list_shows_name_where_description_and_what_is_hidden(
    skills: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert skills_list_command(SettingFlags(), json_output=False) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "deploy  workspace  Deploy this project. Use when asked to ship.",
        "deploy  user       (hidden by the workspace's deploy) Deploy anything.",
        "notes   user       Keep notes.",
    ]


def test_list_json(skills: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    project, user = skills
    assert skills_list_command(SettingFlags(), json_output=True) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows == [
        {
            "name": "deploy",
            "description": "Deploy this project. Use when asked to ship.",
            "where": "workspace",
            "path": str(project.resolve() / "deploy" / "SKILL.md"),
            "shadowed": False,
        },
        {
            "name": "deploy",
            "description": "Deploy anything.",
            "where": "user",
            "path": str(user / "deploy" / "SKILL.md"),
            "shadowed": True,
        },
        {
            "name": "notes",
            "description": "Keep notes.",
            "where": "user",
            "path": str(user / "notes" / "SKILL.md"),
            "shadowed": False,
        },
    ]


def test_list_with_no_skills_says_where_to_put_them(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(workspace)
    assert skills_list_command(SettingFlags(), json_output=False) == 0
    out = capsys.readouterr().out
    assert out.startswith("No skills. Put one in .chrysalis/skills or ") and "NAME/SKILL.md" in out


def test_list_warns_about_a_broken_skill_and_lists_the_rest(
    skills: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    add_skill(skills[0], "broken", text="no front matter\n")
    assert skills_list_command(SettingFlags(), json_output=True) == 0
    captured = capsys.readouterr()
    assert [row["name"] for row in json.loads(captured.out)] == ["deploy", "deploy", "notes"]
    assert ".chrysalis/skills/broken/SKILL.md:1: no front matter" in " ".join(captured.err.split())


def test_show_prints_the_skill_a_run_would_read(skills: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert skills_show_command("deploy", SettingFlags()) == 0
    text = GOOD.format(name="deploy", description="Deploy this project. Use when asked to ship.")
    assert capsys.readouterr().out == text


def test_show_of_an_unknown_or_broken_skill_is_a_usage_error(skills: tuple[Path, Path]) -> None:
    with pytest.raises(UsageError, match=r"No skill is named 'deplo'\. The skills are: deploy, notes\.") as caught:
        skills_show_command("deplo", SettingFlags())
    assert caught.value.exit_code == 2
    add_skill(skills[0], "broken", text="---\nname: broken\n")
    left_out = r"'broken' is left out of runs: \.chrysalis/skills/broken/SKILL\.md:1: .*closed"
    with pytest.raises(UsageError, match=left_out):
        skills_show_command("broken", SettingFlags())


def test_lint_of_clean_skills_exits_0(skills: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert skills_lint_command([], SettingFlags()) == 0
    assert capsys.readouterr().out == "3 skills checked: no problems.\n"


def test_lint_prints_file_line_message_and_exits_2(
    skills: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    project, user = skills
    add_skill(project, "Bad", text="---\nname: Bad\ndescription: d\n---\nSee [x](x.md).\n")
    add_skill(project, "lower", text="")
    (project / "lower" / "SKILL.md").rename(project / "lower" / "skill.md")
    assert skills_lint_command([], SettingFlags()) == 2
    out = capsys.readouterr().out.splitlines()
    assert out == [
        ".chrysalis/skills/Bad/SKILL.md:2: 'name' 'Bad' may hold only lowercase letters, digits and single hyphens "
        "between them, e.g. 'bad'",
        ".chrysalis/skills/Bad/SKILL.md:5: refers to 'x.md', which is not in the skill's folder; add it or fix the "
        "path (paths are relative to the folder of SKILL.md)",
        ".chrysalis/skills/lower/skill.md:1: is named 'skill.md'; it must be 'SKILL.md'",
        "3 problems in 2 of 5 skill file(s).",
    ]
    assert skills_lint_command([project / "Bad"], SettingFlags()) == 2
    assert capsys.readouterr().out.endswith("2 problems in 1 of 1 skill file(s).\n")
    assert skills_lint_command([user], SettingFlags()) == 0
    assert skills_lint_command([user / "notes" / "SKILL.md"], SettingFlags()) == 0


def test_lint_of_a_path_with_no_skill_is_a_usage_error(workspace: Path) -> None:
    with pytest.raises(UsageError, match=r"no such file or folder; give a SKILL\.md"):
        skills_lint_command([workspace / "nope"], SettingFlags())
    with pytest.raises(UsageError, match=r"no SKILL\.md here"):
        skills_lint_command([workspace / "tests"], SettingFlags())


def test_the_commands_as_a_user_runs_them(workspace: Path, chrysalis_home: Path) -> None:
    project = workspace / ".chrysalis" / "skills"
    add_skill(project, "deploy")
    add_skill(project, "broken", text="---\nname: broken\ndescription: Use when: x\n---\n")
    ws = ["--workspace", str(workspace)]
    listed = chrysalis("skills", "list", *ws, cwd=workspace)
    assert listed.returncode == 0 and listed.stdout.startswith("deploy  workspace  Does a thing.")
    assert "broken/SKILL.md:3:" in listed.stderr
    linted = chrysalis("skills", "lint", *ws, cwd=workspace)
    assert linted.returncode == 2 and "Traceback" not in linted.stdout + linted.stderr
    assert linted.stdout.startswith(".chrysalis/skills/broken/SKILL.md:3: a plain value may not hold ': '")
    assert_clean_error(
        chrysalis("skills", "show", "nope", *ws, cwd=workspace),
        2,
        "No skill is named 'nope'",
        "The skills are: deploy.",
    )
    assert_clean_error(
        chrysalis("skills", "lint", str(workspace / "missing"), cwd=workspace), 2, "missing", "no such file or folder"
    )
    assert "skills" in chrysalis("--help").stdout


def test_a_run_over_the_wire_sends_the_body_only_after_the_model_asks(workspace: Path) -> None:
    project = workspace / ".chrysalis" / "skills"
    add_skill(project, "deploy", text="---\nname: deploy\ndescription: Ship it.\n---\nBODY-MARKER-91c: run make.\n")
    add_skill(project, "broken", text="---\nname: broken\n")
    script = [ScriptedReply.tool_call("skill", {"name": "deploy"}), ScriptedReply(text="Shipped.")]
    with ScriptedOpenAIServer(script) as server:
        done = chrysalis("run", "ship it", "--json", *scripted(server.base_url), "--workspace", str(workspace))
    assert done.returncode == 0, done.stderr
    assert "skill left out: " in done.stderr and "broken/SKILL.md:1:" in done.stderr
    first, second = (json.dumps(request) for request in server.requests)
    assert "- deploy: Ship it." in first and "BODY-MARKER-91c" not in first and "broken" not in first
    assert "BODY-MARKER-91c" in second
    results = [json.loads(line) for line in done.stdout.splitlines() if '"tool_result"' in line]
    assert results[0]["tool"] == "skill" and results[0]["ok"]
