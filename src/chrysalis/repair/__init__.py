"""Generate-and-validate repair (``chrysalis fix``, the ``repair`` tool): see ``engine.py`` for the whole path."""

from chrysalis.repair.engine import RepairConfig, Repairer, RepairReport

__all__ = ["RepairConfig", "RepairReport", "Repairer"]
