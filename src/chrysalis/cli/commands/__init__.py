"""The typer side of every ``chrysalis`` command, by area: the options each takes, its help, its exit.

Each module's ``register(app)`` adds its commands to the app, and its groups (``sessions_app``,
``memory_app``, ...) are added by ``chrysalis.cli.app`` in the order ``--help`` lists them. A command
only parses and hands off: the work is in the ``*_cmd`` module it imports when it runs, so reading
these modules imports nothing but typer. Shared options are in ``chrysalis.cli.options``, how a command
ends in ``chrysalis.cli.guard``.
"""
