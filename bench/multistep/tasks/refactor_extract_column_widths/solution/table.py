"""Render rows of values as text tables."""


def column_widths(header, rows):
    """Width of each column: the longest of the header and the cells."""
    widths = [len(str(h)) for h in header]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(str(cell)))
    return widths


def render_plain(header, rows):
    widths = column_widths(header, rows)
    lines = []
    for cells in [header] + list(rows):
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip())
    return "\n".join(lines)


def render_markdown(header, rows):
    widths = column_widths(header, rows)

    def line(cells):
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"

    out = [line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out.extend(line(row) for row in rows)
    return "\n".join(out)
