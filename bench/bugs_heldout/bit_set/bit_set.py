"""A growable set of small non-negative integers stored as 64-bit words."""

WORD = 64


class BitSet:
    def __init__(self, members=()):
        self._words = []
        for m in members:
            self.add(m)

    @staticmethod
    def _locate(n):
        if n < 0:
            raise ValueError(f"BitSet holds non-negative integers, not {n}")
        return divmod(n, WORD)

    def add(self, n):
        w, b = self._locate(n)
        if w >= len(self._words):
            self._words.extend([0] * (w + 1 - len(self._words)))
        self._words[w] |= 1 << b

    def discard(self, n):
        w, b = self._locate(n)
        if w < len(self._words):
            self._words[w] &= ~(1 << b)

    def __contains__(self, n):
        w, b = self._locate(n)
        return w < len(self._words) and bool(self._words[w] >> b & 1)

    def __iter__(self):
        for w, word in enumerate(self._words):
            while word:
                low = word & -word
                yield w * WORD + low.bit_length() - 1
                word ^= low

    def __len__(self):
        return sum(word.bit_count() for word in self._words)

    def _combine(self, other, op):
        size = max(len(self._words), len(other._words))
        mine = self._words + [0] * (size - len(self._words))
        theirs = other._words + [0] * (size - len(other._words))
        result = BitSet()
        result._words = [op(a, b) for a, b in zip(mine, theirs, strict=True)]
        return result

    def __or__(self, other):
        return self._combine(other, lambda a, b: a | b)

    def __and__(self, other):
        return self._combine(other, lambda a, b: a & b)

    def __sub__(self, other):
        return self._combine(other, lambda a, b: a & ~b)

    def __eq__(self, other):
        return isinstance(other, BitSet) and list(self) == list(other)

    __hash__ = None

    def __repr__(self):
        return f"BitSet({list(self)})"
