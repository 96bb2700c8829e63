"""Geometric decomposition (seed 001): split a task into a plan tree, run its leaves with sub-agents, vote.

``Decomposer`` (``run.py``) is the loop; ``plan.py`` the tree and its phenotype; ``planner.py``
the model call that splits a task (voted at the priority's level). ``chrysalis.decompose(...)``
(``api.py``) and ``chrysalis decompose "TASK"`` are the ways in. Read docs/decompose.md.
"""
