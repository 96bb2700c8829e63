"""Skills: discovery from the workspace and the user's folder, lint with file:line, the prompt, the ``skill`` tool,
and progressive disclosure in a real run (the body reaches the model only after it asks)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from chrysalis.agent.prompts import build_system_prompt
from chrysalis.agent.session import AgentSession
from chrysalis.capabilities.skills.discovery import SkillSet, discover_skills, read_skill, skill_tool
from chrysalis.capabilities.skills.lint import lint_skill
from chrysalis.config import load_settings
from chrysalis.tools.base import ToolContext

BODY = "SECRET-BODY-7f3a: always run scripts/fill.py before answering."


def write_skill(root: Path, folder: str, front: str, body: str = BODY, files: dict[str, str] | None = None) -> Path:
    """``root/folder/SKILL.md`` with ``front`` between the --- lines, then ``body``; plus ``files`` beside it."""
    path = root / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{front}\n---\n{body}\n")
    for name, text in (files or {}).items():
        (path.parent / name).parent.mkdir(parents=True, exist_ok=True)
        (path.parent / name).write_text(text)
    return path


def project_skills(workspace: Path) -> Path:
    return workspace / ".chrysalis" / "skills"


def user_skills(home: Path) -> Path:
    return home / "skills"


def pdf_skill(root: Path, description: str = "Fill PDF forms. Use when the user asks to fill a PDF.") -> Path:
    return write_skill(
        root,
        "pdf-forms",
        f"name: pdf-forms\ndescription: {description}",
        files={"scripts/fill.py": "print('filled')\n", "REFERENCE.md": "# Fields\n"},
    )


# -- Discovery ------------------------------------------------------------------------------------------------


def test_skills_are_found_in_the_workspace_and_the_users_folder(workspace: Path, chrysalis_home: Path) -> None:
    pdf_skill(project_skills(workspace))
    write_skill(user_skills(chrysalis_home), "commit-style", "name: commit-style\ndescription: How to write commits.")
    found = discover_skills(workspace, chrysalis_home)
    assert found.names == ("commit-style", "pdf-forms")
    assert [s.origin for s in found.skills] == ["user", "workspace"]
    assert found.shadowed == () and found.broken == ()
    pdf = found.get("pdf-forms")
    assert pdf is not None and pdf.body.startswith("SECRET-BODY")
    assert pdf.path == project_skills(workspace) / "pdf-forms" / "SKILL.md"


def test_a_workspace_skill_hides_the_users_skill_of_the_same_name(workspace: Path, chrysalis_home: Path) -> None:
    pdf_skill(project_skills(workspace), "the project's way")
    pdf_skill(user_skills(chrysalis_home), "the user's way")
    found = discover_skills(workspace, chrysalis_home)
    assert [(s.origin, s.description) for s in found.skills] == [("workspace", "the project's way")]
    assert [(s.origin, s.description) for s in found.shadowed] == [("user", "the user's way")]


def test_no_skills_folder_means_no_skills_and_no_tool(workspace: Path, chrysalis_home: Path) -> None:
    found = discover_skills(workspace, chrysalis_home)
    assert found == SkillSet() and found.prompt_section() == "" and found.tools() == {}


def test_a_folded_description_and_a_missing_name_still_make_a_skill(workspace: Path, chrysalis_home: Path) -> None:
    write_skill(project_skills(workspace), "release", "description: >\n  Cut a release.\n  Use when asked to ship.")
    (skill,) = discover_skills(workspace, chrysalis_home).skills
    assert skill.name == "release"  # the folder's name, as Claude Code does; lint asks for the key
    assert skill.description == "Cut a release. Use when asked to ship."


def test_broken_skills_are_left_out_with_a_reason_and_line(workspace: Path, chrysalis_home: Path) -> None:
    root = project_skills(workspace)
    pdf_skill(root)
    write_skill(root, "colon", "name: colon\ndescription: Use when: always")
    write_skill(root, "nodesc", "name: nodesc")
    (root / "nofront").mkdir()
    (root / "nofront" / "SKILL.md").write_text("# Just a title\n")
    (root / "lower").mkdir()
    (root / "lower" / "skill.md").write_text("---\nname: lower\ndescription: x\n---\n")
    (root / "latin1").mkdir()
    (root / "latin1" / "SKILL.md").write_bytes(b"---\nname: latin1\ndescription: caf\xe9\n---\n")
    found = discover_skills(workspace, chrysalis_home)
    assert found.names == ("pdf-forms",)
    reasons = {p.path.parent.name: (p.line, p.message) for p in found.broken}
    assert reasons["colon"][0] == 3 and "quotes" in reasons["colon"][1]
    assert reasons["nodesc"][0] == 1 and "no 'description'" in reasons["nodesc"][1]
    assert reasons["nofront"] == (1, reasons["nofront"][1]) and "no front matter" in reasons["nofront"][1]
    assert "must be 'SKILL.md'" in reasons["lower"][1]
    assert reasons["latin1"][0] == 3 and "UTF-8" in reasons["latin1"][1]
    assert all("chrysalis skills lint" in w for w in found.warnings()) and len(found.warnings()) == 5


def test_two_skills_with_one_name_in_one_place_keep_the_first(workspace: Path, chrysalis_home: Path) -> None:
    write_skill(project_skills(workspace), "a", "name: same\ndescription: first")
    write_skill(project_skills(workspace), "b", "name: same\ndescription: second")
    found = discover_skills(workspace, chrysalis_home)
    assert [s.description for s in found.skills] == ["first"]
    assert "already named 'same'" in found.broken[0].message and found.broken[0].path.parent.name == "b"


def test_a_workspace_skill_that_leads_out_of_the_workspace_is_refused(
    workspace: Path, chrysalis_home: Path, tmp_path: Path
) -> None:
    elsewhere = pdf_skill(tmp_path / "outside").parent
    project_skills(workspace).mkdir(parents=True)
    (project_skills(workspace) / "pdf-forms").symlink_to(elsewhere)
    found = discover_skills(workspace, chrysalis_home)
    assert found.skills == () and "leads out of the workspace" in found.broken[0].message
    (user_skills(chrysalis_home)).mkdir()
    (user_skills(chrysalis_home) / "pdf-forms").symlink_to(elsewhere)  # the user's own folder may link anywhere
    assert discover_skills(workspace, chrysalis_home).names == ("pdf-forms",)


def test_a_workspace_at_the_users_home_reads_one_skills_folder_once(tmp_path: Path) -> None:
    home = tmp_path / ".chrysalis"
    pdf_skill(user_skills(home))
    found = discover_skills(tmp_path, home)
    assert found.names == ("pdf-forms",) and found.shadowed == () and found.skills[0].origin == "user"


# -- Lint -----------------------------------------------------------------------------------------------------


@dataclass
class Case:
    front: str
    body: str = "Body."
    folder: str = "my-skill"
    files: dict[str, str] = field(default_factory=dict[str, str])
    problems: list[tuple[int, str]] = field(default_factory=list[tuple[int, str]])
    """(line, a piece of the message) for each problem, in line order."""


LINT_CASES = {
    "clean": Case("name: my-skill\ndescription: Does things. Use when asked."),
    "no name": Case("description: Does things.", problems=[(1, "has no 'name'; add 'name: my-skill'")]),
    "empty name": Case("name: ''\ndescription: d", problems=[(2, "'name' is empty")]),
    "bad characters": Case(
        "name: My_Skill\ndescription: d",
        folder="My_Skill",
        problems=[(2, "only lowercase letters, digits and single hyphens between them, e.g. 'my-skill'")],
    ),
    "double hyphen": Case("name: my--skill\ndescription: d", folder="my--skill", problems=[(2, "single hyphens")]),
    "too long": Case(f"name: {'a' * 65}\ndescription: d", folder="a" * 65, problems=[(2, "65 characters long")]),
    "not the folder": Case("name: other\ndescription: d", problems=[(2, "differs from its folder's name 'my-skill'")]),
    "no description": Case("name: my-skill", problems=[(1, "has no 'description'")]),
    "empty description": Case("name: my-skill\ndescription: >\n", problems=[(3, "'description' is empty")]),
    "description too long": Case(f"name: my-skill\ndescription: {'x' * 1025}", problems=[(3, "1025 characters")]),
    "syntax": Case("name: my-skill\ndescription: see: here", problems=[(3, "put the whole value in quotes")]),
    "references": Case(
        "name: my-skill\ndescription: d",
        body="Read [the guide](GUIDE.md) and [missing](NOPE.md#part).\n"
        "Run `python scripts/run.py` or `scripts/gone.py`, or `./helper.sh`.\n"
        "Not ours: `src/app.py`, `os.path`, [site](https://example.com), [top](#top).\n"
        "```\npython scripts/example_only.py\n```\n"
        "Outside: [up](../secrets.md) and [abs](/etc/passwd) and `../shared/x.md`.",
        files={"GUIDE.md": "guide", "scripts/run.py": "print(1)"},
        problems=[
            (5, "'NOPE.md', which is not in the skill's folder"),
            (6, "'scripts/gone.py', which is not in"),
            (6, "'./helper.sh', which is not in"),
            (11, "'../secrets.md', which is outside the skill's folder"),
            (11, "'/etc/passwd', which is outside"),
            (11, "'../shared/x.md', which is outside"),
        ],
    ),
}


@pytest.mark.parametrize("case", LINT_CASES.values(), ids=LINT_CASES.keys())
def test_lint_names_each_problem_with_its_line(case: Case, tmp_path: Path) -> None:
    path = write_skill(tmp_path, case.folder, case.front, case.body, case.files)
    problems = lint_skill(path)
    assert [p.line for p in problems] == [line for line, _ in case.problems], [str(p) for p in problems]
    for problem, (line, needle) in zip(problems, case.problems, strict=True):
        assert str(problem).startswith(f"{path}:{line}: ") and needle in problem.message, str(problem)


def test_lint_of_a_file_without_front_matter_or_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "x" / "SKILL.md"
    path.parent.mkdir()
    path.write_text("# Title only\n")
    (problem,) = lint_skill(path)
    assert (problem.line, problem.fatal) == (1, True) and "no front matter" in problem.message
    path.write_text("---\nname: x\ndescription: d\n")
    assert "never closed" in lint_skill(path)[0].message


def test_a_reference_through_a_symlink_that_leaves_the_folder_is_outside(tmp_path: Path) -> None:
    (tmp_path / "secret.md").write_text("secret")
    path = write_skill(tmp_path, "linky", "name: linky\ndescription: d", "See [notes](notes.md).")
    (path.parent / "notes.md").symlink_to(tmp_path / "secret.md")
    (problem,) = lint_skill(path)
    assert problem.line == 5 and "a symlink that leads outside the skill's folder" in problem.message


def test_read_skill_and_lint_agree_on_what_is_fatal(tmp_path: Path) -> None:
    usable = write_skill(tmp_path, "Odd Name", "name: Odd Name\ndescription: d")
    skill, problems = read_skill(usable)
    assert skill is not None and skill.name == "Odd Name" and problems and not any(p.fatal for p in problems)
    unusable = write_skill(tmp_path, "x", "name: x\ndescription: ''")
    skill, problems = read_skill(unusable)
    assert skill is None and problems[0].fatal


# -- The prompt and the tool ----------------------------------------------------------------------------------


def test_the_prompt_lists_names_and_descriptions_but_no_body(workspace: Path, chrysalis_home: Path) -> None:
    pdf_skill(project_skills(workspace), "Fill PDF forms.\n  Use when the user asks to fill a PDF.")
    found = discover_skills(workspace, chrysalis_home)
    prompt = build_system_prompt(workspace, "code", level=2, head=[found.prompt_section()])
    assert "- pdf-forms: Fill PDF forms. Use when the user asks to fill a PDF." in prompt
    assert "call skill with its name" in prompt
    assert "SECRET-BODY" not in prompt and "REFERENCE.md" not in prompt.split("Files in the workspace")[0]
    assert "Skills:" not in build_system_prompt(workspace, "code", level=2)


def test_the_prompt_section_is_capped(workspace: Path, chrysalis_home: Path) -> None:
    for i in range(60):
        write_skill(project_skills(workspace), f"skill-{i:02d}", f"name: skill-{i:02d}\ndescription: {'word ' * 200}")
    section = discover_skills(workspace, chrysalis_home).prompt_section()
    assert len(section) <= 3200
    assert all(len(line) <= 260 for line in section.splitlines())
    assert section.splitlines()[-1].startswith("- ... ") and "more" in section.splitlines()[-1]


def test_the_tool_returns_the_body_and_the_files_then_a_file(workspace: Path, chrysalis_home: Path) -> None:
    pdf_skill(project_skills(workspace))
    tool = skill_tool(discover_skills(workspace, chrysalis_home))
    ctx = ToolContext(workspace=workspace)
    assert (tool.effect, tool.level) == ("read", 0)
    result = tool({"name": "pdf-forms"}, ctx)
    assert result.ok and BODY in result.result
    assert "folder .chrysalis/skills/pdf-forms" in result.result
    assert "REFERENCE.md, scripts/fill.py" in result.result and "SKILL.md," not in result.result
    assert tool({"name": "pdf-forms", "file": "scripts/fill.py"}, ctx).result == "print('filled')\n"


def test_the_tool_refuses_unknown_names_and_files_outside_the_skill(
    workspace: Path, chrysalis_home: Path, tmp_path: Path
) -> None:
    folder = pdf_skill(user_skills(chrysalis_home)).parent
    write_skill(project_skills(workspace), "other", "name: other\ndescription: d")
    (tmp_path / "secret.txt").write_text("TOP SECRET")
    (folder / "leak.txt").symlink_to(tmp_path / "secret.txt")
    (folder / "blob.bin").write_bytes(b"\0\1\2")
    tool = skill_tool(discover_skills(workspace, chrysalis_home))
    ctx = ToolContext(workspace=workspace)
    unknown = tool({"name": "pdf"}, ctx)
    assert not unknown.ok and unknown.error == "No skill is named 'pdf'. The skills are: other, pdf-forms."
    for path in ("../../config.toml", "/etc/passwd", "leak.txt", "nope.md"):
        refused = tool({"name": "pdf-forms", "file": path}, ctx)
        assert not refused.ok and "has no file" in (refused.error or "") and "TOP SECRET" not in str(refused)
    assert "binary" in (tool({"name": "pdf-forms", "file": "blob.bin"}, ctx).error or "")
    assert str(folder) in tool({"name": "pdf-forms"}, ctx).result  # a user skill's folder is named in full


# -- Progressive disclosure in a run --------------------------------------------------------------------------


@dataclass
class Reader:
    """A model that calls ``skill`` first, then answers; it keeps everything it received at each request."""

    calls: list[tuple[str, ...]] = field(default_factory=list[tuple[str, ...]])
    received: list[str] = field(default_factory=list[str])
    """Per request: the instructions, the tool definitions and the whole message history, as text."""
    offered: list[set[str]] = field(default_factory=list[set[str]])

    def model(self) -> FunctionModel:
        def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            tools = " ".join(f"{t.name} {t.description} {t.parameters_json_schema}" for t in info.function_tools)
            history = ModelMessagesTypeAdapter.dump_json(messages).decode()
            self.received.append(f"{info.instructions}\n{tools}\n{history}")
            self.offered.append({t.name for t in info.function_tools})
            if len(self.received) == 1 and "skill" in self.offered[0]:
                return ModelResponse(parts=[ToolCallPart("skill", {"name": "pdf-forms"})])
            return ModelResponse(parts=[TextPart("done")])

        return FunctionModel(respond)


def run_with(workspace: Path, reader: Reader, **flags: str) -> None:
    session = AgentSession(load_settings({"workspace": workspace, **flags}), model=reader.model())
    try:
        assert asyncio.run(session.run("fill the form in form.pdf")).output == "done"
    finally:
        session.close()


def test_the_body_reaches_the_model_only_after_it_asks(workspace: Path, chrysalis_home: Path) -> None:
    pdf_skill(project_skills(workspace))
    reader = Reader()
    run_with(workspace, reader)
    before, after = reader.received
    assert "- pdf-forms: Fill PDF forms. Use when the user asks to fill a PDF." in before
    assert "SECRET-BODY-7f3a" not in before and "skill" in reader.offered[0]
    assert "SECRET-BODY-7f3a" in after and "scripts/fill.py" in after


@pytest.mark.parametrize("mode", ["ask", "architect", "semantic"])
def test_the_skill_tool_is_offered_and_allowed_in_every_mode_at_level_0(workspace: Path, mode: str) -> None:
    pdf_skill(project_skills(workspace))
    reader = Reader()
    run_with(workspace, reader, mode=mode, level="0")
    assert "skill" in reader.offered[0] and "SECRET-BODY-7f3a" in reader.received[1]


def test_without_skills_there_is_no_skill_tool_and_a_broken_one_does_not_stop_the_run(workspace: Path) -> None:
    write_skill(project_skills(workspace), "broken", "name: broken\ndescription: Use when: x")
    reader = Reader()
    run_with(workspace, reader)
    assert "skill" not in reader.offered[0] and "Skills:" not in reader.received[0]
    assert len(reader.received) == 1


def test_the_tool_reads_the_skill_as_found_when_the_run_started(workspace: Path, chrysalis_home: Path) -> None:
    path = pdf_skill(project_skills(workspace))
    found = discover_skills(workspace, chrysalis_home)
    path.unlink()  # deleted mid-run: the model still gets what the prompt promised
    assert BODY in skill_tool(found)({"name": "pdf-forms"}, ToolContext(workspace=workspace)).result


def test_a_skills_folder_that_is_a_symlink_loop_finds_nothing_and_raises_nothing(
    workspace: Path, chrysalis_home: Path
) -> None:
    (workspace / ".chrysalis").mkdir()
    project_skills(workspace).symlink_to("skills")
    (chrysalis_home / "skills").symlink_to(chrysalis_home / "skills")
    assert discover_skills(workspace, chrysalis_home) == SkillSet()
