"""Semantic versions (MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]): parsing, ordering, bumping and caret ranges."""

import re
from dataclasses import dataclass
from functools import total_ordering

_PATTERN = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$")


def _compare_identifiers(a, b):
    """Numeric identifiers compare as numbers and sort before alphanumeric ones."""
    if a.isdigit() and b.isdigit():
        a, b = int(a), int(b)
    elif a.isdigit() or b.isdigit():
        return -1 if a.isdigit() else 1
    return (a > b) - (a < b)


def _compare_prerelease(left, right):
    if left == right:
        return 0
    if not left or not right:
        return 1 if not left else -1  # a release ranks above its pre-releases
    for a, b in zip(left, right):
        result = _compare_identifiers(a, b)
        if result:
            return result
    return (len(left) > len(right)) - (len(left) < len(right))


@total_ordering
@dataclass(frozen=True)
class Version:
    major: int
    minor: int
    patch: int
    prerelease: tuple = ()
    build: str = ""

    @classmethod
    def parse(cls, text):
        match = _PATTERN.match(text.strip())
        if not match:
            raise ValueError(f"not a semantic version: {text!r}")
        major, minor, patch, pre, build = match.groups()
        return cls(int(major), int(minor), int(patch), tuple(pre.split(".")) if pre else (), build or "")

    def __str__(self):
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.prerelease:
            text += "-" + ".".join(self.prerelease)
        return text + (f"+{self.build}" if self.build else "")

    def _compare(self, other):
        core = (self.major, self.minor, self.patch)
        other_core = (other.major, other.minor, other.patch)
        if core != other_core:
            return -1 if core < other_core else 1
        return _compare_prerelease(self.prerelease, other.prerelease)

    def __eq__(self, other):
        return isinstance(other, Version) and self._compare(other) == 0

    def __lt__(self, other):
        return self._compare(other) < 0

    def __hash__(self):
        return hash((self.major, self.minor, self.patch, self.prerelease))

    def bump(self, part):
        if part == "major":
            return Version(self.major + 1, 0, 0)
        if part == "minor":
            return Version(self.major, self.minor + 1, 0)
        if part == "patch":
            return Version(self.major, self.minor, self.patch + (0 if self.prerelease else 1))
        raise ValueError(f"unknown part {part!r}")


def satisfies_caret(version, base):
    """npm's ^base: at least base, and below the next change of the leftmost non-zero part."""
    if version < base:
        return False
    if base.major:
        return version.major == base.major
    if base.minor:
        return version.major == 0 and version.minor == base.minor
    return (version.major, version.minor, version.patch) == (0, 0, base.patch)
