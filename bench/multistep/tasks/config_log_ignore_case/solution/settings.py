"""Settings of the log analyser, read from INI text."""
import configparser

DEFAULT_INI = """
[report]
top = 3
ignore_case = false
"""


def load_settings(text=""):
    """Defaults from DEFAULT_INI, overridden by the given INI text."""
    parser = configparser.ConfigParser()
    parser.read_string(DEFAULT_INI)
    if text:
        parser.read_string(text)
    section = parser["report"]
    return {"top": section.getint("top"), "ignore_case": section.getboolean("ignore_case")}
