"""The entry layer's servers: MCP over stdio, ACP for editors, the HTTP service and the local dashboard.

Each speaks a protocol other programs already know and drives the same ``AgentSession`` as the CLI,
under the same settings and policy. Imported only by ``chrysalis serve`` and ``chrysalis ui``.
"""
