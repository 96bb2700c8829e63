"""The ``repair`` tool: the agent hands failing tests to generate-and-validate repair (``chrysalis.repair``)."""
