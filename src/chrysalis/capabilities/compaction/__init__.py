"""Compaction (seed 002): older turns summarised by the model into the prompt, the recent ones kept."""
