"""Turn post titles into URL slugs."""
import re


def slugify(title):
    """'Hello, World!' -> 'hello-world'"""
    words = re.findall(r"[a-z0-9]+", title.lower())
    return "-".join(words)


def unique_slug(title, existing):
    """slugify(title), suffixed with -2, -3, ... if already in existing."""
    base = slugify(title)
    if base not in existing:
        return base
    n = 2
    while f"{base}-{n}" in existing:
        n += 1
    return f"{base}-{n}"
