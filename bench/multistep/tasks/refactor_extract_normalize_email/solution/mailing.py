"""Build the recipient list of a newsletter."""
from emails import normalize_email


def unique_recipients(addresses):
    """Normalised addresses, duplicates removed, in first-seen order."""
    seen = []
    for address in addresses:
        key = normalize_email(address)
        if key not in seen:
            seen.append(key)
    return seen


def to_header(addresses):
    return ", ".join(unique_recipients(addresses))
