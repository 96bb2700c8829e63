"""The gate every tool call of a run goes through: thin wrappers, one concern each (``gated.py`` draws the chain)."""
