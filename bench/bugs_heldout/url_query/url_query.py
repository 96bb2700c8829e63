"""Parsing and building URL query strings (application/x-www-form-urlencoded), with percent-escapes."""

SAFE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")


def unquote(text):
    """Decode %XX escapes (as UTF-8) and '+' as a space; a malformed escape is kept as it is."""
    out = bytearray()
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "%" and _is_hex(text[i + 1 : i + 3]):
            out.append(int(text[i + 1 : i + 3], 16))
            i += 3
            continue
        out.extend(b" " if ch == "+" else ch.encode("utf-8"))
        i += 1
    return out.decode("utf-8", errors="replace")


def _is_hex(pair):
    return len(pair) == 2 and all(c in "0123456789abcdefABCDEF" for c in pair)


def quote(text):
    return "".join(ch if ch in SAFE else "+" if ch == " " else _escape(ch) for ch in text)


def _escape(ch):
    return "".join(f"%{byte:02X}" for byte in ch.encode("utf-8"))


def parse_query(query):
    """{name: [values]} in order of first appearance; a name without '=' gets the value ''."""
    params = {}
    for pair in query.lstrip("?").replace(";", "&").split("&"):
        if not pair:
            continue
        key, _, value = pair.partition("=")
        params.setdefault(unquote(key), []).append(unquote(value))
    return params


def get_one(query, name, default=None):
    """The last value given for ``name``."""
    values = parse_query(query).get(name)
    return values[-1] if values else default


def build_query(params):
    """The inverse of parse_query for a dict of strings or lists of strings."""
    pairs = []
    for key, values in params.items():
        for value in [values] if isinstance(values, str) else values:
            pairs.append(f"{quote(key)}={quote(value)}")
    return "&".join(pairs)
