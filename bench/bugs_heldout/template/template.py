"""A small logic-less template engine in the style of Mustache.

{{name}} inserts a value, HTML-escaped; {{&name}} inserts it raw; names may be dotted (user.name).
{{#items}}...{{/items}} repeats the block for each item of a list (or renders it once for a true
value); {{^items}}...{{/items}} renders the block only when the value is missing, false or empty.
Inside a section, names are looked up in the item first, then in the enclosing contexts.
"""

import re

TAG = re.compile(r"{{\s*([#^/&]?)\s*([\w.]+)\s*}}")
ESCAPES = [("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;")]


class TemplateError(ValueError):
    pass


def escape(text):
    for char, entity in ESCAPES:
        text = text.replace(char, entity)
    return text


def lookup(stack, name):
    if name == ".":
        return stack[-1]
    first, *rest = name.split(".")
    for context in reversed(stack):
        if isinstance(context, dict) and first in context:
            value = context[first]
            break
    else:
        return None
    for part in rest:
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _find_close(template, name, start):
    """The span of the {{/name}} that closes a section opened before ``start``, minding nesting."""
    depth = 1
    for match in TAG.finditer(template, start):
        sigil, other = match.groups()
        if other == name and sigil in ("#", "^"):
            depth += 1
        elif other == name and sigil == "/":
            depth -= 1
            if depth == 0:
                return match.start(), match.end()
    raise TemplateError(f"section {name!r} is not closed")


def _render(template, stack):
    out = []
    pos = 0
    while (match := TAG.search(template, pos)) is not None:
        out.append(template[pos : match.start()])
        sigil, name = match.groups()
        value = lookup(stack, name)
        if sigil in ("#", "^"):
            close_start, close_end = _find_close(template, name, match.end())
            block = template[match.end() : close_start]
            if sigil == "^":
                out.append("" if value else _render(block, stack))
            elif isinstance(value, list):
                out.extend(_render(block, [*stack, item]) for item in value)
            elif value:
                out.append(_render(block, [*stack, value]))
            pos = close_end
            continue
        if sigil == "/":
            raise TemplateError(f"unexpected close of {name!r}")
        text = "" if value is None else str(value)
        out.append(text if sigil == "&" else escape(text))
        pos = match.end()
    out.append(template[pos:])
    return "".join(out)


def render(template, context):
    return _render(template, [context])
