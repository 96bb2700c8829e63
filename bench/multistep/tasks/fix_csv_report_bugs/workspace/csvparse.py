"""A minimal CSV reader (no quoting) that returns one dict per row."""


def split_line(line):
    return [cell.strip() for cell in line.split(",")]


def parse_rows(text):
    """Parse CSV text whose first line is the header."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return []
    header = split_line(lines[0])
    rows = []
    for line in lines[1:-1]:
        rows.append(dict(zip(header, split_line(line))))
    return rows
