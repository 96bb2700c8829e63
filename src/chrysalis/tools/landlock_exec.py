"""Run a command under Landlock, the sandbox used where bubblewrap cannot make namespaces.

``python -I -m chrysalis.tools.landlock_exec SPEC -- ARGV...`` restricts itself and then execs
``ARGV``, so the command and everything it starts inherit the restriction (Landlock cannot be
lifted). ``SPEC`` is JSON: ``read`` (paths to read and execute), ``write`` (paths to change) and
``network`` (``false`` blocks TCP connect and bind, Landlock ABI 4+). From ABI 6 the command also
cannot signal processes outside its sandbox (``kill -9 $PPID`` fails) or reach their abstract UNIX
sockets; reading another process's ``/proc/PID/environ`` is refused at every ABI (Landlock limits
ptrace to its own domain). Landlock does not hide other paths, it refuses them: ``cat ~/.ssh/id_rsa``
fails with "Permission denied".

The ``landlock`` package sets the file-system rules; the network and scope rules (which it does
not support yet) are a second, stacked ruleset made here with the same three system calls.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
from pathlib import Path
from typing import Any

__all__ = ["main", "restrict"]

_CREATE_RULESET, _RESTRICT_SELF = 444, 446  # the same numbers on every architecture
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


def _restrict_net_and_scope(abi: int, network: bool) -> None:
    """Stack a ruleset that blocks TCP (unless ``network``) and, from ABI 6, signals and sockets outside."""
    net = 0 if network or abi < 4 else _NET_BIND_TCP | _NET_CONNECT_TCP
    scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL if abi >= 6 else 0
    if not net and not scoped:
        return
    attr = _RulesetAttr(0, net, scoped)
    size = ctypes.sizeof(attr) if abi >= 6 else 16  # before ABI 6 the kernel knows no ``scoped`` field
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.syscall(ctypes.c_long(_CREATE_RULESET), ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if fd < 0:
        raise OSError(ctypes.get_errno(), f"landlock_create_ruleset: {os.strerror(ctypes.get_errno())}")
    try:
        if libc.syscall(ctypes.c_long(_RESTRICT_SELF), ctypes.c_int(fd), ctypes.c_uint32(0)) < 0:
            raise OSError(ctypes.get_errno(), f"landlock_restrict_self: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(fd)


def restrict(spec: dict[str, Any]) -> None:
    """Restrict this process (and what it will exec) to ``spec``: read, write, network."""
    import landlock

    fs = landlock.FSAccess
    read = fs.READ_FILE | fs.READ_DIR | fs.EXECUTE
    ruleset = landlock.Ruleset()
    for paths, rules in ((spec["read"], read), (spec["write"], fs.all())):
        for path in paths:
            if Path(path).exists():
                # a rule on a file may only name file rights; on a directory it covers everything beneath
                ruleset.allow(path, rules=rules if Path(path).is_dir() else rules & fs.all_file())
    ruleset.apply()
    _restrict_net_and_scope(landlock.landlock_abi_version(), bool(spec["network"]))


def main(argv: list[str]) -> int:
    """``SPEC -- ARGV...``: restrict, then exec ``ARGV`` (returns only on a usage or set-up error)."""
    if len(argv) < 3 or argv[1] != "--":
        print("usage: python -m chrysalis.tools.landlock_exec SPEC -- COMMAND...", file=sys.stderr)
        return 2
    try:
        restrict(json.loads(argv[0]))
    except Exception as exc:  # landlock's own errors, a kernel without it, a bad spec: say so, do not run unconfined
        print(f"chrysalis: cannot apply the Landlock sandbox: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 126
    try:
        os.execvp(argv[2], argv[2:])
    except OSError as exc:
        print(f"chrysalis: cannot start {argv[2]!r}: {exc.strerror}", file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
