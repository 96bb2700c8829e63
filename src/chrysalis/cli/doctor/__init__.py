"""``chrysalis doctor``: is this machine ready to run the agent, and what fixes each thing that is not.

``command`` is the command itself: ``SECTIONS`` in order, the sandbox, MCP and versions sections, the
report and its text or ``--json``; ``sections`` is what one section reports (facts, lines, problems with
their fixes); ``model`` holds the model and keys sections, ``database`` the database section.
"""
