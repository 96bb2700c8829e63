"""A small INI reader: [sections], key = value pairs, comments, and a DEFAULT section every section inherits."""

TRUE_WORDS = {"1", "yes", "true", "on"}
FALSE_WORDS = {"0", "no", "false", "off"}


class IniError(ValueError):
    def __init__(self, line_number, message):
        super().__init__(f"line {line_number}: {message}")
        self.line_number = line_number


def parse_ini(text):
    """{section: {key: value}}; keys are lower-cased, values stripped; DEFAULT is kept apart."""
    sections = {"DEFAULT": {}}
    current = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1].strip()
            sections.setdefault(current, {})
            continue
        if "=" not in line:
            raise IniError(number, f"expected key = value, got {line!r}")
        if current is None:
            raise IniError(number, "key outside of any section")
        key, value = line.split("=", 1)
        sections[current][key.strip().lower()] = value.strip()
    return sections


class Config:
    def __init__(self, text):
        self._sections = parse_ini(text)

    def sections(self):
        return [name for name in self._sections if name != "DEFAULT"]

    def get(self, section, key, default=None):
        key = key.lower()
        for source in (self._sections.get(section, {}), self._sections["DEFAULT"]):
            if key in source:
                return source[key]
        return default

    def get_int(self, section, key, default=0):
        value = self.get(section, key)
        return default if value is None else int(value)

    def get_bool(self, section, key, default=False):
        value = self.get(section, key)
        if value is None:
            return default
        if value.lower() in TRUE_WORDS:
            return True
        if value.lower() in FALSE_WORDS:
            return False
        raise ValueError(f"{section}.{key}: not a boolean: {value!r}")
