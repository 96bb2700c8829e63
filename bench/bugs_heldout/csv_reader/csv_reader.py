"""A CSV reader: quoted fields (with "" for a quote, and newlines inside quotes), records keyed by the header."""


class CsvError(ValueError):
    pass


def parse_rows(text, delimiter=","):
    """Split ``text`` into rows of fields; a trailing newline does not make an empty row."""
    rows, row, field = [], [], []
    in_quotes = False
    i = 0
    while i < len(text):
        ch = text[i]
        if in_quotes:
            if ch == '"' and text[i + 1 : i + 2] == '"':
                field.append('"')
                i += 1
            elif ch == '"':
                in_quotes = False
            else:
                field.append(ch)
        elif ch == '"' and not field:
            in_quotes = True
        elif ch == delimiter:
            row.append("".join(field))
            field = []
        elif ch == "\n":
            row.append("".join(field))
            rows.append(row)
            row, field = [], []
        elif ch != "\r":
            field.append(ch)
        i += 1
    if in_quotes:
        raise CsvError("unterminated quoted field")
    if field or row:
        row.append("".join(field))
        rows.append(row)
    return rows


def read_records(text, delimiter=","):
    """One dict per line after the header; short lines are padded with None."""
    rows = parse_rows(text, delimiter)
    if not rows:
        return []
    header, *records = rows
    if len(set(header)) != len(header):
        raise CsvError("duplicate column names")
    for number, record in enumerate(records, start=2):
        if len(record) > len(header):
            raise CsvError(f"line {number}: {len(record)} fields, header has {len(header)}")
    return [dict(zip(header, record + [None] * (len(header) - len(record)))) for record in records]


def column(text, name, delimiter=","):
    return [record[name] for record in read_records(text, delimiter)]
