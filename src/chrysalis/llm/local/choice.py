"""How likely each of a few answers is, read from llama.cpp's logits in a forward pass or two.

A micro-question (``chrysalis.voting.micro``) offers a handful of answers: a peg, a number, yes or
no. Sampling each voter's reply would decode a few tokens per voter; instead the prompt is evaluated
once (its shared part reused from the KV cache) and the log-probability of every whole answer,
followed by the end of the turn, is read from the logits, walking the answers' tokens as a trie so
that answers sharing a first token ("1", "10") cost one more pass, not one per answer. Voters then
draw from that distribution at their own temperatures (``chrysalis.llm.sampling``): the same draws
temperature sampling under a grammar of the answers would make, without a pass per draw.
"""

from __future__ import annotations

import math
from typing import Any

from chrysalis.llm.backend import AnswerOdds

__all__ = ["answer_logprobs"]


def answer_logprobs(llama: Any, prompt: list[int], answers: list[str], end: int) -> AnswerOdds:
    """Log P(answer, then ``end``) for each answer after ``prompt`` (caller holds the model's lock)."""
    cached = llama.longest_token_prefix(llama._input_ids[: llama.n_tokens].tolist(), prompt)
    _evaluate(llama, prompt, cached)
    base = len(prompt)
    nodes: dict[tuple[int, ...], list[float]] = {(): _log_softmax(llama)}

    def node(prefix: tuple[int, ...]) -> list[float]:
        if prefix not in nodes:
            llama.n_tokens = base
            llama.eval(list(prefix))
            nodes[prefix] = _log_softmax(llama)
        return nodes[prefix]

    logprobs = []
    for answer in answers:
        tokens = llama.tokenize(answer.encode("utf-8"), add_bos=False, special=False)
        path = [*tokens, end]
        logprobs.append(sum(node(tuple(tokens[:j]))[token] for j, token in enumerate(path)))
    return AnswerOdds(logprobs=logprobs, prompt_tokens=base, cached_tokens=min(cached, base))


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
