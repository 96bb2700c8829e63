"""Reflected binary Gray codes: consecutive codes differ in exactly one bit."""


def to_gray(n: int) -> int:
    return n ^ (n >> 1)


def from_gray(code: int) -> int:
    n = 0
    while code:
        n ^= code
        code >>= 1
    return n


def gray_sequence(bits: int):
    """Yield the 2**bits codes of the given width in Gray order."""
    if bits < 0:
        raise ValueError("bits must be non-negative")
    for i in range(1 << bits):
        yield to_gray(i)


def gray_strings(bits: int) -> list[str]:
    return [format(code, f"0{bits}b") if bits else "" for code in gray_sequence(bits)]


def changed_bit(a: int, b: int) -> int | None:
    """The position of the single bit in which a and b differ, or None if they are not adjacent codes."""
    diff = a ^ b
    if diff == 0 or diff & (diff - 1):
        return None
    return diff.bit_length() - 1


def rotary_positions(readings: list[int]) -> list[int]:
    """Decode a rotary encoder's Gray-coded readings into positions; a jump of more than one bit is an error."""
    positions = []
    for previous, current in zip([None, *readings], readings, strict=False):
        if previous is not None and previous != current and changed_bit(previous, current) is None:
            raise ValueError(f"reading {current:b} skipped a position after {previous:b}")
        positions.append(from_gray(current))
    return positions
