"""Sub-agents (seed 000's spawn): ``spawn_agent``, ``agent_status`` and ``cancel_agent``, for the ``all`` profile."""
