"""MCP servers a run uses (docs/mcp.md): started per run, their tools offered as ``mcp__SERVER__TOOL``."""
