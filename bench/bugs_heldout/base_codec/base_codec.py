"""Positional number systems with a configurable digit alphabet (binary up to base 62)."""

import string
from dataclasses import dataclass, field

DIGITS = string.digits + string.ascii_lowercase + string.ascii_uppercase


@dataclass(frozen=True)
class BaseCodec:
    base: int
    alphabet: str = DIGITS
    _index: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if not 2 <= self.base <= len(self.alphabet):
            raise ValueError(f"base must be between 2 and {len(self.alphabet)}, got {self.base}")
        digits = self.alphabet[: self.base]
        if len(set(digits)) != len(digits):
            raise ValueError("alphabet has repeated digits")
        object.__setattr__(self, "_index", {ch: i for i, ch in enumerate(digits)})

    def encode(self, number: int) -> str:
        if number == 0:
            return self.alphabet[0]
        sign = "-" if number < 0 else ""
        number = abs(number)
        digits = []
        while number:
            number, digit = divmod(number, self.base)
            digits.append(self.alphabet[digit])
        return sign + "".join(reversed(digits))

    def decode(self, text: str) -> int:
        text = text.strip()
        sign = 1
        if text.startswith("-"):
            sign, text = -1, text[1:]
        if not text:
            raise ValueError("no digits to decode")
        value = 0
        for ch in text:
            if ch not in self._index:
                raise ValueError(f"{ch!r} is not a base-{self.base} digit")
            value = value * self.base + self._index[ch]
        return sign * value


def to_base(number: int, base: int) -> str:
    return BaseCodec(base).encode(number)


def from_base(text: str, base: int) -> int:
    return BaseCodec(base).decode(text)


def convert(text: str, source: int, target: int) -> str:
    """Re-write a numeral from one base in another."""
    return to_base(from_base(text, source), target)
