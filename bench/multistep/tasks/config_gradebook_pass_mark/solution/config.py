"""Grade book settings: defaults overridden by a JSON file."""
import json
import os

DEFAULTS = {"max_score": 100, "course": "unnamed", "pass_mark": 50}
SETTINGS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "settings.json")


def load_config(path=SETTINGS_FILE):
    config = dict(DEFAULTS)
    if path and os.path.exists(path):
        with open(path) as fh:
            config.update(json.load(fh))
    return config
