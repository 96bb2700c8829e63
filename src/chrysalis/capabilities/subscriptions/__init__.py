"""Subscriptions (seed 002): files, globs and memory queries read fresh into each task's prompt."""
