"""How likely each of a few answers is, read from llama.cpp's logits in a forward pass or two.

A micro-question (``chrysalis.voting.micro``) offers a handful of answers: a peg, a number, yes or
no. Sampling each voter's reply would decode a few tokens per voter; instead the prompt is evaluated
once (its shared part reused from the KV cache) and each answer's probability is read from the
logits, walking the answers' tokens (each followed by the end of the turn) as a trie. Voters then
draw from that distribution at their own temperatures (``chrysalis.llm.sampling``).

The probabilities are the ones decoding under a grammar of the answers gives: at each node of the
trie the model may only take one of the tokens some answer continues with, so its probabilities are
renormalised over those. Where only one token is allowed (after ``2``, when no other answer starts
with ``2``, only the end is), that token's probability is 1 and needs no forward pass. So answers
that differ in their first token (``1`` … ``9``, ``None``; ``A``, ``B``, ``C``) cost the prompt's
pass alone, and ``1`` beside ``10`` one more: a pass per branching node, not one per answer.
"""

from __future__ import annotations

import math
from typing import Any

from chrysalis.llm.backend import AnswerOdds

__all__ = ["answer_logprobs"]


def answer_logprobs(llama: Any, prompt: list[int], answers: list[str], end: int) -> AnswerOdds:
    """Log P(answer, then ``end``) for each answer after ``prompt``, under a grammar of the answers.

    The caller holds the model's lock.
    """
    cached = llama.longest_token_prefix(llama._input_ids[: llama.n_tokens].tolist(), prompt)
    _evaluate(llama, prompt, cached)
    base = len(prompt)
    paths = [(*llama.tokenize(answer.encode("utf-8"), add_bos=False, special=False), end) for answer in answers]
    allowed: dict[tuple[int, ...], set[int]] = {}
    for path in paths:
        for j, token in enumerate(path):
            allowed.setdefault(path[:j], set()).add(token)
    nodes: dict[tuple[int, ...], list[float]] = {(): _log_softmax(llama)}

    def node(prefix: tuple[int, ...]) -> list[float]:
        if prefix not in nodes:
            llama.n_tokens = base
            llama.eval(list(prefix))
            nodes[prefix] = _log_softmax(llama)
        return nodes[prefix]

    logprobs = []
    for path in paths:
        total = 0.0
        for j, token in enumerate(path):
            choices = allowed[path[:j]]
            if len(choices) > 1:  # one allowed token has probability 1 under the grammar
                weights = node(path[:j])
                total += weights[token] - _log_sum_exp([weights[t] for t in choices])
        logprobs.append(total)
    return AnswerOdds(logprobs=logprobs, prompt_tokens=base, cached_tokens=min(cached, base))


def _log_sum_exp(values: list[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


def _evaluate(llama: Any, prompt: list[int], cached: int) -> None:
    """Evaluate the uncached part of ``prompt`` (at least its last token, whose logits are needed)."""
    start = min(cached, len(prompt) - 1)
    llama.n_tokens = start  # eval() drops the cache past this point first
    llama.eval(prompt[start:])


def _log_softmax(llama: Any) -> list[float]:
    """The log-probabilities of the next token after the last token evaluated."""
    import numpy as np

    logits = np.ctypeslib.as_array(llama._ctx.get_logits(), shape=(llama.n_vocab(),)).astype(np.float64)
    shifted = logits - logits.max()
    result: list[float] = (shifted - math.log(float(np.exp(shifted).sum()))).tolist()
    return result
