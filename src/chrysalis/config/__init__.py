"""Settings, merged from four sources, each value remembering where it came from.

Precedence, highest first: command-line flags > environment (``CHRYSALIS_*``) > the workspace's
``.chrysalis/config.toml`` > ``$CHRYSALIS_HOME/config.toml`` > built-in defaults. Remembering the
source of every value is what lets ``chrysalis config show`` answer "why is this set?", and lets a
bad value's error name the exact file, line and key to fix.

The modules, in the order they build on each other:

- ``choices``: the closed vocabularies (modes, levels, priorities, tool profiles);
- ``coerce``: the parsers that turn a raw value into a typed one, or refuse it;
- ``entry``: the shape of one setting's entry (its concern, parser, allowed values, help);
- ``concerns``: the groups of settings by concern (``settings.security``, ``settings.limits``, ...);
- ``settings``: the table itself: ``Settings``, one field and entry per setting;
- ``flags``: ``SettingFlags``, the settings given as flags, not yet checked;
- ``narrowing``: what "narrower" means for each security setting (the policy's rule, read here too);
- ``untrusted``: what the config of a folder the user has not trusted may set;
- ``load``: ``load_settings``, the merge of every source.
"""

from chrysalis.config.choices import (
    DEFAULT_MODEL,
    EMBEDDING_PROVIDERS,
    LEVEL_NAMES,
    MIN_SUBSCRIPTION_CHARS,
    MODES,
    PERMISSION_ACTIONS,
    PRIORITY_KEYWORDS,
    PROFILES,
    TELEMETRY,
    TOOL_PROFILES,
    Mode,
)
from chrysalis.config.coerce import split_rule, without_password
from chrysalis.config.entry import CONCERNS, Concern, Entry
from chrysalis.config.flags import SettingFlags
from chrysalis.config.library import configure, library_flags
from chrysalis.config.load import coerce_value, load_settings
from chrysalis.config.settings import (
    DB_FILENAME,
    ENTRIES,
    KEYS,
    TABLE,
    TRACES_FILENAME,
    Settings,
    chrysalis_home,
    env_var,
)

__all__ = [
    "CONCERNS",
    "DB_FILENAME",
    "DEFAULT_MODEL",
    "EMBEDDING_PROVIDERS",
    "ENTRIES",
    "KEYS",
    "LEVEL_NAMES",
    "MIN_SUBSCRIPTION_CHARS",
    "MODES",
    "PERMISSION_ACTIONS",
    "PRIORITY_KEYWORDS",
    "PROFILES",
    "TABLE",
    "TELEMETRY",
    "TOOL_PROFILES",
    "TRACES_FILENAME",
    "Concern",
    "Entry",
    "Mode",
    "SettingFlags",
    "Settings",
    "chrysalis_home",
    "coerce_value",
    "configure",
    "env_var",
    "library_flags",
    "load_settings",
    "split_rule",
    "without_password",
]
