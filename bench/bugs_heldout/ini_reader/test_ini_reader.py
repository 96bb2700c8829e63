import pytest

from ini_reader import Config, IniError, parse_ini

SAMPLE = """
; global settings
[DEFAULT]
timeout = 30

[server]
Host = example.org
port = 8080
debug = yes

[client]
url = https://example.org/api?key=abc&page=2
timeout = 5
"""


def test_sections_and_values():
    config = Config(SAMPLE)
    assert config.sections() == ["server", "client"]
    assert config.get("server", "host") == "example.org"


def test_values_may_contain_equals_signs():
    assert Config(SAMPLE).get("client", "url") == "https://example.org/api?key=abc&page=2"


def test_defaults_are_inherited_and_overridden():
    config = Config(SAMPLE)
    assert config.get_int("server", "timeout") == 30
    assert config.get_int("client", "timeout") == 5
    assert config.get_int("client", "retries", default=3) == 3


def test_booleans():
    config = Config("[a]\nx = On\ny = no\nz = maybe\n")
    assert config.get_bool("a", "x") is True
    assert config.get_bool("a", "y") is False
    with pytest.raises(ValueError, match="not a boolean"):
        config.get_bool("a", "z")


def test_comments_and_blank_lines_are_skipped():
    assert parse_ini("# c\n\n[s]\n; c\nk=v\n")["s"] == {"k": "v"}


def test_errors_name_the_line():
    with pytest.raises(IniError, match="line 2"):
        parse_ini("[s]\njust words\n")
    with pytest.raises(IniError, match="outside"):
        parse_ini("k = v\n")
