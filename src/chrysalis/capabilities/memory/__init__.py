"""Memory (seed 002): ``remember``/``recall``/``forget`` tools, and the memories matching the task in the prompt."""
