"""The council (seed 003): a panel of personas that take turns on a topic, and the signed records of what it said.

Who speaks is decided by rules, not by a model: personas as data, the gate and the arbiter are a
deterministic core. What is said is kept as records, fingerprinted, chained and signed
(``records.py``, ``clocks.py``; checked by ``provenance.py``). ``Meeting`` holds a council round by
round, with the model behind one callable, so the ``chrysalis council`` command gives it a model and a
database and tests give it a script. Read docs/council.md.

Seed 003's names, and ours:

==============================================  ===============================================================
seed 003                                        here
==============================================  ===============================================================
``PersonaConfig``, ``BehaviorLoader``           ``Persona``, ``builtin_personas()``, ``load_personas(...)``
                                                (``personas.py``: TOML files, not JSON)
``InitiativePolicy`` (``can_interject``, ...)   ``Persona.mode`` (``InitiativeMode``)
``SharedConversationMiddleware.shouldSpeak``    ``Gate`` / ``gate(...)`` -> ``GateResult`` (``gate.py``)
(Routine A: Gate)
``TriggerEvaluator``, ``ConversationTrigger``   ``Persona.triggers``, matched by the gate
``TurnTakingPolicy`` (cooldown in seconds)      ``Gate.cooldown``, in rounds
``RepairPolicy``                                ``gate.REPAIR_WORDS``: a repair signal raises confidence
turn history (``recordTurn``)                   ``Turn(persona, text, round)``, the history the gate reads
``AgentArbiter.selectWinners``                  ``Arbiter.select(candidates)`` -> ``Selection`` (``arbiter.py``)
``GateResult`` as a bid, ``ArbiterResult``      ``Candidate``, ``Selection``
``diversityBonus``, pile-on prevention          ``arbiter.DIVERSITY_WEIGHT``, ``Arbiter.max_speakers``
global turn budget                              ``Arbiter(turn_budget=...)``, ``Arbiter.turns_left``
``OpenerSelector``, ``IdiomRegistry``,          ``Voice``, ``OPENERS``, ``IDIOMS`` (``openers.py``): drawn from a
``weightedRandomSelect``                        seeded ``random.Random``; ``weighted_choice``
``SCMRouter`` (gate every agent, arbitrate)     ``Meeting`` (``meeting.py``): each round the gate for every
                                                persona, ``Arbiter.select``, then the winners' turns
Routines B and C: Plan, Realize                 ``turns.plan`` (the prompt), ``turns.realize`` (brevity, one
                                                question, opener and idiom, copied sentences dropped)
``JobRecord`` (fingerprint, signature, vc)      ``records.Record``, ``records.Recorder``: SHA-384 fingerprints,
                                                Ed25519 signatures, ``clocks.py`` vector clocks
Verification (fingerprint, signature, order)    ``provenance.verify_records`` / ``verify_run``
==============================================  ===============================================================
"""

from chrysalis.council.arbiter import DEFAULT_MAX_SPEAKERS, DIVERSITY_WEIGHT, Arbiter, Candidate, Selection
from chrysalis.council.gate import DEFAULT_COOLDOWN, REPAIR_WORDS, Gate, GateResult, GateRule, Turn, gate
from chrysalis.council.meeting import DEFAULT_TURNS, CouncilEnd, Meeting, Speak
from chrysalis.council.openers import IDIOMS, OPENERS, Phrase, Voice, weighted_choice
from chrysalis.council.personas import (
    InitiativeMode,
    Persona,
    builtin_personas,
    load_personas,
    read_persona,
    user_persona_folder,
    workspace_persona_files,
    workspace_persona_folder,
)

__all__ = [
    "DEFAULT_COOLDOWN",
    "DEFAULT_MAX_SPEAKERS",
    "DEFAULT_TURNS",
    "DIVERSITY_WEIGHT",
    "IDIOMS",
    "OPENERS",
    "REPAIR_WORDS",
    "Arbiter",
    "Candidate",
    "CouncilEnd",
    "Gate",
    "GateResult",
    "GateRule",
    "InitiativeMode",
    "Meeting",
    "Persona",
    "Phrase",
    "Selection",
    "Speak",
    "Turn",
    "Voice",
    "builtin_personas",
    "gate",
    "load_personas",
    "read_persona",
    "user_persona_folder",
    "weighted_choice",
    "workspace_persona_files",
    "workspace_persona_folder",
]
