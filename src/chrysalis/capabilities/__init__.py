"""The agent's capabilities, one folder each, every one a plug-in of the same protocol (``chrysalis.plugin``).

``registry.py`` lists them in order; run assembly (``chrysalis.agent.assembly``) asks each enabled one
for its tools and prompt section, and the session passes every event to each. Adding a capability is
a new folder here and one line in the registry; nothing in ``chrysalis.agent`` changes. The smallest
one, ``knowledge/plugin.py``, is the one to copy. Capabilities never import ``chrysalis.agent``: what
they need of a run arrives in a ``RunScope`` (``scope.py``).
"""
