"""``decorrelated``: a model that samples as voter ``i`` on every request of a run.

Voting over whole agent runs (a decomposition's ``vote`` op) needs each voter's run to be a
different draw, or the voters only repeat each other. Voter ``i`` gets ``Decorrelation``'s
temperature for ``i`` (voter 0 greedy) and seed ``VOTER_SEEDS * i`` on every request. A request
that sets its own (a step vote's redraws: seeds 1, 2, ... at rising temperatures) keeps its
temperature, and its seed is offset by the voter's, so one voter's redraws never repeat another's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from pydantic_ai.models import Model, ModelRequestParameters, StreamedResponse
from pydantic_ai.models.wrapper import WrapperModel

from chrysalis.llm.sampling import Decorrelation

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage, ModelResponse
    from pydantic_ai.settings import ModelSettings
    from pydantic_ai.tools import RunContext

__all__ = ["VOTER_SEEDS", "Decorrelated", "decorrelated"]

VOTER_SEEDS = 1000
"""Seeds between one voter's and the next's: room for a step vote's redraws within each."""


def decorrelated(model: Model, voter: int | None) -> Model:
    """``model`` sampling as voter ``voter`` (None: not a voter, ``model`` itself)."""
    return model if voter is None else Decorrelated(model, voter)


class Decorrelated(WrapperModel):
    """``wrapped`` with voter ``voter``'s temperature and seed on every request (see the module docstring)."""

    def __init__(self, wrapped: Model, voter: int) -> None:
        super().__init__(wrapped)
        self.voter = voter

    def _as_voter(self, given: ModelSettings | None) -> ModelSettings:
        settings: dict[str, Any] = dict(given or {})
        settings.setdefault("temperature", Decorrelation().temperature(self.voter))
        settings["seed"] = VOTER_SEEDS * self.voter + int(settings.get("seed", 0))
        return settings  # type: ignore[return-value]

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """The wrapped model's reply, drawn as this voter."""
        return await self.wrapped.request(messages, self._as_voter(model_settings), model_request_parameters)

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        """The wrapped model's streamed reply, drawn as this voter."""
        async with self.wrapped.request_stream(
            messages, self._as_voter(model_settings), model_request_parameters, run_context
        ) as stream:
            yield stream
