"""``VotingModel``: the run's model, with its critical replies drawn several times and voted on.

What is critical, how candidates are counted and which are red-flagged: ``agent/step_vote.py``.
Here: the first candidate is the model's own reply (streamed as usual); a critical one is joined by
more, drawn for the same request at rising temperatures and seeds, until one normalised reply leads
first-to-ahead-by-k (``chrysalis.vote_async``). The step's usage is every candidate's, so
``--budget`` counts them all.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pydantic_ai.models import Model, ModelRequestParameters, StreamedResponse
from pydantic_ai.models.wrapper import WrapperModel

from chrysalis.agent.step_vote import StepVoting, call_key, critical_reason, describe, red_flag
from chrysalis.events import Event, StepVote
from chrysalis.llm.many_replies import draw_many, takes_n
from chrysalis.llm.sampling import Decorrelation
from chrysalis.voting import VoteError, vote_async

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage, ModelResponse
    from pydantic_ai.settings import ModelSettings
    from pydantic_ai.tools import RunContext

    from chrysalis.tools.base import Effect

__all__ = ["VotingModel"]


class VotingModel(WrapperModel):
    """The run's model, with its critical replies voted on (see the module docstring)."""

    def __init__(
        self,
        wrapped: Model,
        voting: StepVoting,
        effects: dict[str, Effect],
        *,
        run_id: str,
        emit: Callable[[Event], None],
        step: Callable[[], int],
    ) -> None:
        super().__init__(wrapped)
        self.voting = voting
        self._effects = effects
        self._run_id = run_id
        self._emit = emit
        self._step = step

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """The model's reply; a critical one is the winner of a vote among several drawn for the same request."""
        first = await self.wrapped.request(messages, model_settings, model_request_parameters)
        return await self._voted(first, messages, model_settings, model_request_parameters)

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        """Stream the first candidate as usual; once it is read whole, a critical one is voted on.

        pydantic-ai takes the step's reply from the stream's ``get()`` after this context closes, so
        the winner replaces it there (tests pin this: ``tests/agent/test_step_vote.py``).
        """
        async with self.wrapped.request_stream(
            messages, model_settings, model_request_parameters, run_context
        ) as stream:
            yield stream
            first = stream.get()
            if first.state != "complete":
                return
            winner = await self._voted(first, messages, model_settings, model_request_parameters)
            if winner is not first:
                stream.get = lambda: winner  # type: ignore[method-assign]

    async def _voted(
        self,
        first: ModelResponse,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        params: ModelRequestParameters,
    ) -> ModelResponse:
        reason = critical_reason(first, self._effects, self.voting)
        if reason is None:
            return first
        drawn: list[ModelResponse] = []
        tools = {tool.name for tool in params.function_tools}
        config = self.voting.config()
        sample = _Redraws(self.wrapped, first, messages, model_settings, params, config.n, drawn).sample

        try:
            result = await vote_async(sample, config, normalize=call_key, red_flag=lambda r: red_flag(r, tools))
            winner: ModelResponse = result.winner
            counts, flagged, consensus = result.counts, result.flagged, result.consensus
        except VoteError:  # every candidate red-flagged: the first reply stands, the loop's own guards see it
            winner, counts, flagged, consensus = first, {}, {"every_sample": len(drawn)}, False
        usage = drawn[0].usage
        for response in drawn[1:]:
            usage = usage + response.usage
        self._emit(
            StepVote(
                run_id=self._run_id,
                step=self._step(),
                trigger=reason,  # type: ignore[arg-type]
                candidates={describe(key): n for key, n in counts.items()},
                winner=describe(call_key(winner)),
                flagged=dict(flagged),
                samples=len(drawn),
                consensus=consensus,
            )
        )
        return replace(winner, usage=usage)


def _as_voter(model_settings: ModelSettings | None, i: int) -> ModelSettings:
    """The request's settings as voter ``i`` draws: its temperature and seed, as the fast sampling path."""
    settings: dict[str, Any] = dict(model_settings or {})
    settings.update(temperature=Decorrelation().temperature(i), seed=i)
    return settings  # type: ignore[return-value]


class _Redraws:
    """The candidates of one vote: the first reply, then redraws (the first round in one request where ``n`` works)."""

    def __init__(
        self,
        model: Model,
        first: ModelResponse,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        params: ModelRequestParameters,
        n: int,
        drawn: list[ModelResponse],
    ) -> None:
        self.model, self.first, self.messages, self.settings, self.params = (
            model,
            first,
            messages,
            model_settings,
            params,
        )
        self.n, self.drawn = n, drawn
        self._together: asyncio.Future[list[ModelResponse]] | None = None

    async def sample(self, i: int) -> ModelResponse:
        """Voter ``i``'s candidate (each one drawn is kept in ``drawn``, for the step's usage)."""
        response = self.first if i == 0 else await self._together_or_alone(i)
        self.drawn.append(response)
        return response

    async def _together_or_alone(self, i: int) -> ModelResponse:
        if i < self.n and takes_n(self.model):  # the first round's redraws: one request, n - 1 choices
            if self._together is None:
                batch = draw_many(self.model, self.messages, _as_voter(self.settings, 1), self.params, self.n - 1)
                self._together = asyncio.ensure_future(batch)
            replies = await asyncio.shield(self._together)
            if len(replies) >= i:
                return replies[i - 1]
        return await self.model.request(self.messages, _as_voter(self.settings, i), self.params)
