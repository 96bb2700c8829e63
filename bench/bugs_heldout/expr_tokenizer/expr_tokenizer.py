"""A tokenizer and recursive-descent evaluator for arithmetic: + - * / ^, parentheses, unary minus, names."""

from dataclasses import dataclass

OPERATORS = "+-*/^()"


class ParseError(ValueError):
    pass


@dataclass(frozen=True)
class Token:
    kind: str  # "num", "name", "op" or "end"
    text: str
    pos: int


def tokenize(text):
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if ch.isdigit() or ch == ".":
            j = i
            while j < len(text) and (text[j].isdigit() or text[j] == "."):
                j += 1
            yield Token("num", text[i:j], i)
            i = j
        elif ch.isalpha() or ch == "_":
            j = i
            while j < len(text) and (text[j].isalnum() or text[j] == "_"):
                j += 1
            yield Token("name", text[i:j], i)
            i = j
        elif ch in OPERATORS:
            yield Token("op", ch, i)
            i = i + 1
        else:
            raise ParseError(f"unexpected {ch!r} at {i}")
    yield Token("end", "", len(text))


class Parser:
    def __init__(self, text, variables=None):
        self.tokens = list(tokenize(text))
        self.index = 0
        self.variables = variables or {}

    def peek(self):
        return self.tokens[self.index]

    def take(self, text=None):
        token = self.tokens[self.index]
        if text is not None and token.text != text:
            raise ParseError(f"expected {text!r} at {token.pos}, found {token.text or 'end'!r}")
        self.index += 1
        return token

    def expression(self):
        value = self.term()
        while self.peek().text in ("+", "-"):
            value = value + self.term() if self.take().text == "+" else value - self.term()
        return value

    def term(self):
        value = self.power()
        while self.peek().text in ("*", "/"):
            value = value * self.power() if self.take().text == "*" else value / self.power()
        return value

    def power(self):
        base = self.unary()
        if self.peek().text == "^":
            self.take()
            return base ** self.power()  # right-associative
        return base

    def unary(self):
        if self.peek().text == "-":
            self.take()
            return -self.unary()
        return self.atom()

    def atom(self):
        token = self.take()
        if token.kind == "num":
            return float(token.text) if "." in token.text else int(token.text)
        if token.kind == "name":
            if token.text not in self.variables:
                raise ParseError(f"unknown name {token.text!r}")
            return self.variables[token.text]
        if token.text == "(":
            value = self.expression()
            self.take(")")
            return value
        raise ParseError(f"unexpected {token.text or 'end'!r} at {token.pos}")


def evaluate(text, **variables):
    parser = Parser(text, variables)
    value = parser.expression()
    parser.take("")
    return value
