PAIRS = {")": "(", "]": "[", "}": "{"}


def balanced(text):
    """Whether every bracket in ``text`` is closed by the matching bracket, in order."""
    stack = []
    for ch in text:
        if ch in "([{":
            stack.append(ch)
        elif ch in PAIRS:
            if not stack or stack.pop() != PAIRS[ch]:
                return False
    return not stack
