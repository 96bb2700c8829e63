"""Settings of the expense tracker, stored as JSON."""
import json

DEFAULTS = {
    "currency": "EUR",
    "categories": ["food", "rent", "travel", "other"],
}


def load_config(text=None):
    """Defaults, overridden by the keys of the JSON text if given."""
    config = dict(DEFAULTS)
    if text:
        config.update(json.loads(text))
    return config
