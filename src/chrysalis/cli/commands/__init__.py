"""The typer side of every ``chrysalis`` command, by area: the options each takes, its help, how it ends.

A module with top-level commands adds them with ``register(app)``; its groups (``sessions_app``,
``memory_app``, ...) are added by ``chrysalis.cli.app``, which keeps the order ``--help`` lists them in.
A command only parses and hands off: the work is in the ``*_cmd`` module it imports when it runs, so
importing these modules costs only typer. The options they share are in ``chrysalis.cli.options``,
how a command ends (message, exit code) in ``chrysalis.cli.guard``.
"""
