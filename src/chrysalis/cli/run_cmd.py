"""``chrysalis run "TASK"``: one task, streamed, with an exit code that says how it ended."""

from __future__ import annotations

import asyncio

from chrysalis.agent.session import AgentSession
from chrysalis.capabilities.skills.discovery import discover_skills
from chrysalis.cli.approval import terminal_approver
from chrysalis.cli.conversation import ConversationFlags
from chrysalis.cli.daemon import client as daemon_client
from chrysalis.cli.guard import AlreadyShown
from chrysalis.cli.render import JsonRenderer, RichRenderer, print_warnings
from chrysalis.config import SettingFlags, load_settings
from chrysalis.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, ChrysalisError, UsageError

__all__ = ["run_command"]


def run_command(
    task: str, flags: SettingFlags, *, json_output: bool, conversation: ConversationFlags | None = None
) -> int:
    """Run ``task`` with settings from ``flags``; every error of the run is shown as an ``error`` event.

    ``conversation`` says which earlier session the run goes on with (``--continue``, ``--resume``,
    ``--fork``) and what it subscribes to (``--subscribe``); without it the run starts a new session.
    Exit code 0 when the run succeeded (its change passed the project's tests, or nothing could check
    it), 1 when it failed or its check failed; errors give their own codes.
    """
    if not task.strip():
        raise UsageError('The task is empty: say what the agent should do, e.g. chrysalis run "fix the failing test".')
    conversation = conversation or ConversationFlags()
    conversation.check()
    settings = load_settings(flags)
    print_warnings((*settings.warnings, *discover_skills(settings.workspace, settings.home).warnings()))
    if settings.daemon and not daemon_client.IN_DAEMON_CHILD:
        daemon_client.start_daemon(settings.home)  # warms up beside this run; exits at once if one runs
    renderer = JsonRenderer() if json_output else RichRenderer()
    approver = None if json_output else terminal_approver(lambda: settings.workspace)
    session = AgentSession(settings, approver=approver, on_event=renderer)
    try:
        conversation.open(session)
        print_warnings(conversation.add_subscriptions(session))
    except ChrysalisError:  # no run began: the message is shown as any usage error is
        session.close()
        raise
    try:
        result = asyncio.run(session.run(task))
    except ChrysalisError as exc:
        raise AlreadyShown(exc) from exc
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    finally:
        session.close()
    return EXIT_OK if result.success else EXIT_FAILED
