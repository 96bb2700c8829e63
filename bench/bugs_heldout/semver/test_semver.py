import pytest

from semver import Version, satisfies_caret


def v(text):
    return Version.parse(text)


def test_parse_and_format():
    version = v("v1.2.3-rc.1+build.5")
    assert (version.major, version.minor, version.patch) == (1, 2, 3)
    assert version.prerelease == ("rc", "1")
    assert str(version) == "1.2.3-rc.1+build.5"


def test_numeric_order_not_text_order():
    assert v("1.10.0") > v("1.9.0")


def test_prerelease_ranks_below_release():
    assert v("1.0.0-alpha") < v("1.0.0")


def test_prerelease_precedence_chain():
    chain = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11"]
    versions = [v(text) for text in chain]
    assert sorted(reversed(versions)) == versions


def test_build_metadata_is_ignored_in_comparisons():
    assert v("1.0.0+a") == v("1.0.0+b")


def test_bump():
    assert str(v("1.2.3").bump("minor")) == "1.3.0"
    assert str(v("1.2.3-rc.1").bump("patch")) == "1.2.3"
    with pytest.raises(ValueError, match="unknown part"):
        v("1.2.3").bump("micro")


def test_caret_ranges():
    assert satisfies_caret(v("1.9.9"), v("1.2.3"))
    assert not satisfies_caret(v("2.0.0"), v("1.2.3"))
    assert satisfies_caret(v("0.2.5"), v("0.2.3"))
    assert not satisfies_caret(v("0.3.0"), v("0.2.3"))


def test_invalid():
    with pytest.raises(ValueError, match="not a semantic version"):
        v("1.2")
