"""Exact fractions kept in lowest terms with a positive denominator."""

from math import gcd


class Rational:
    __slots__ = ("den", "num")

    def __init__(self, num, den=1):
        if den == 0:
            raise ZeroDivisionError("denominator is zero")
        g = gcd(num, den)
        if den < 0:
            g = -g
        self.num = num // g
        self.den = den // g

    @classmethod
    def parse(cls, text):
        """'3/4', '-2' or '0.125'."""
        text = text.strip()
        if "/" in text:
            num, den = text.split("/")
            return cls(int(num), int(den))
        if "." in text:
            whole, frac = text.split(".")
            sign = -1 if whole.startswith("-") else 1
            return cls(int(whole or "0"), 1) + cls(sign * int(frac), 10 ** len(frac))
        return cls(int(text))

    @staticmethod
    def _coerce(value):
        return value if isinstance(value, Rational) else Rational(value)

    def __add__(self, other):
        other = self._coerce(other)
        return Rational(self.num * other.den + other.num * self.den, self.den * other.den)

    __radd__ = __add__

    def __neg__(self):
        return Rational(-self.num, self.den)

    def __sub__(self, other):
        return self + -self._coerce(other)

    def __mul__(self, other):
        other = self._coerce(other)
        return Rational(self.num * other.num, self.den * other.den)

    __rmul__ = __mul__

    def __truediv__(self, other):
        other = self._coerce(other)
        return Rational(self.num * other.den, self.den * other.num)

    def __eq__(self, other):
        other = self._coerce(other)
        return self.num == other.num and self.den == other.den

    def __hash__(self):
        return hash((self.num, self.den))

    def __lt__(self, other):
        other = self._coerce(other)
        return self.num * other.den < other.num * self.den

    def __str__(self):
        return str(self.num) if self.den == 1 else f"{self.num}/{self.den}"

    def __repr__(self):
        return f"Rational({self.num}, {self.den})"


def harmonic(n):
    """1 + 1/2 + ... + 1/n, exactly."""
    return sum((Rational(1, k) for k in range(1, n + 1)), Rational(0))
