"""The warm daemon: a process that has already imported what a run needs, so ``chrysalis run`` starts fast.

``client`` (standard library only) hands a run to the daemon or starts, stops and asks it; ``server``
is the daemon itself (``python -m chrysalis.cli.daemon.server``), which forks a child per run;
``wire`` is what both sides share (paths, messages, the code fingerprint); ``command`` is
``chrysalis daemon start|stop|status``.
"""
