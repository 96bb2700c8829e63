"""Skills (seed 002): SKILL.md folders, one line each in the prompt, their bodies through the ``skill`` tool."""
