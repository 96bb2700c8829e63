"""Greedy word wrapping, full justification and shortening, for plain text paragraphs."""


def _words(text):
    return text.split()


def wrap(text, width):
    """Lines of at most ``width`` characters; a word longer than ``width`` is split across lines."""
    if width < 1:
        raise ValueError("width must be at least 1")
    lines, current = [], ""
    for word in _words(text):
        while len(word) > width:
            if current:
                lines.append(current)
                current = ""
            lines.append(word[:width])
            word = word[width:]
        if not current:
            current = word
        elif len(current) + 1 + len(word) <= width:
            current += " " + word
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines


def fill(text, width):
    return "\n".join(wrap(text, width))


def justify_line(line, width):
    """Spread the spaces so the line is exactly ``width`` long; the leftmost gaps get the extra ones."""
    words = _words(line)
    if len(words) < 2:
        return line.ljust(width)
    gaps = len(words) - 1
    spaces, extra = divmod(width - sum(map(len, words)), gaps)
    out = []
    for index, word in enumerate(words[:-1]):
        out.append(word + " " * (spaces + (1 if index < extra else 0)))
    return "".join(out) + words[-1]


def justify(text, width):
    lines = wrap(text, width)
    return [justify_line(line, width) for line in lines[:-1]] + lines[-1:]


def shorten(text, width, placeholder="..."):
    """Collapse whitespace and cut at a word boundary so the result, with the placeholder, fits in ``width``."""
    words = _words(text)
    if len(" ".join(words)) <= width:
        return " ".join(words)
    kept = []
    for word in words:
        if len(" ".join([*kept, word])) + len(placeholder) > width:
            break
        kept.append(word)
    return " ".join(kept) + placeholder if kept else placeholder[:width]
