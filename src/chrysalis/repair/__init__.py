"""Generate-and-validate repair (``chrysalis fix``, the ``repair`` tool): see ``engine.py`` for the whole path."""

from chrysalis.repair.apply import Authorise, allow_all
from chrysalis.repair.engine import RepairConfig, Repairer, RepairReport

__all__ = ["Authorise", "RepairConfig", "RepairReport", "Repairer", "allow_all"]
