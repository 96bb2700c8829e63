"""Voting with red flags (seed 001, MAKER): draw samples, discard suspicious ones, stop when one answer leads.

    from chrysalis import vote, VotingConfig
    result = vote(lambda i: ask_model(seed=i), VotingConfig.level("high"), normalize=str.strip)
    result.winner, result.counts, result.consensus

See docs/voting.md.
"""

from chrysalis.voting import red_flags
from chrysalis.voting.core import LEVELS, Vote, VoteError, VotingConfig, vote, vote_async

__all__ = ["LEVELS", "Vote", "VoteError", "VotingConfig", "red_flags", "vote", "vote_async"]
