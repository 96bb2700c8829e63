"""Email address helpers."""


def normalize_email(address):
    """' Ann+work@Example.com ' -> 'ann@example.com'"""
    local, _, domain = address.strip().lower().partition("@")
    if not local or not domain:
        raise ValueError(f"not an email address: {address!r}")
    local = local.split("+", 1)[0]
    return f"{local}@{domain}"
