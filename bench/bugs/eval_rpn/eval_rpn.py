import operator

OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}


def eval_rpn(expression):
    """The value of a space-separated reverse Polish expression such as '3 4 + 2 *'."""
    stack = []
    for token in expression.split():
        if token in OPERATORS:
            right = stack.pop()
            left = stack.pop()
            stack.append(OPERATORS[token](left, right))
        else:
            stack.append(float(token))
    return stack.pop()
