"""``chrysalis serve --acp``: the agent for editors (Zed and others) over the Agent Client Protocol (docs/acp.md).

``agent`` answers the protocol's requests on stdio; ``session`` is one editor session (an ``AgentSession``
in the client's folder, its approvals as permission requests, its cancel); ``updates`` turns the run's
events into session updates and ``history`` a stored conversation into the updates that replay it;
``inputs`` turns prompts and the client's MCP servers into our terms; ``modes`` offers our modes as ACP ones.
"""
