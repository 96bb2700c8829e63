"""Build the recipient list of a newsletter."""


def unique_recipients(addresses):
    """Normalised addresses, duplicates removed, in first-seen order."""
    seen = []
    for address in addresses:
        local, _, domain = address.strip().lower().partition("@")
        if not local or not domain:
            raise ValueError(f"not an email address: {address!r}")
        local = local.split("+", 1)[0]
        key = f"{local}@{domain}"
        if key not in seen:
            seen.append(key)
    return seen


def to_header(addresses):
    return ", ".join(unique_recipients(addresses))
