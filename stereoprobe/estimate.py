"""What a collect run would ask, in requests, tokens and cost, without asking anything."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

# Remote next-word mode: one request for the first tokens, then one per further token of
# each candidate word; about 12 per probe at the defaults (docs/nextword.md).
NEXTWORD_REQUESTS_PER_PROBE = 12


@dataclass
class Estimate:
    requests: int
    prompt_tokens: int
    completion_tokens: int
    completion_tokens_max: int
    cost: float | None
    note: str = ""

    def summary(self) -> str:
        text = (
            f"{'about ' if self.note else ''}{self.requests} requests{self.note}; "
            f"about {self.prompt_tokens:,} prompt tokens and "
            f"{self.completion_tokens:,} completion tokens (at most {self.completion_tokens_max:,})"
        )
        if self.cost is not None:
            text += f"; estimated cost {self.cost:.4f} at the given prices per million tokens"
        return text + ". Nothing was asked (--dry-run)."


def estimate(
    prompts: Sequence[str],
    samples: int = 1,
    max_tokens: int = 300,
    price_in: float | None = None,
    price_out: float | None = None,
    words_tokens: int = 40,
    requests_per_prompt: int = 1,
) -> Estimate:
    """Tokens and cost of asking `prompts` `samples` times, without asking anything.

    Tokens are estimated at 4 characters per token plus 7 per chat message; a ten-word
    numbered list takes about 40 completion tokens, `max_tokens` bounds it.

    >>> e = estimate(["x" * 40, "y" * 80], samples=2, max_tokens=300, price_in=1.0, price_out=2.0)
    >>> (e.requests, e.prompt_tokens, e.completion_tokens, e.completion_tokens_max)
    (4, 88, 160, 1200)
    >>> round(e.cost, 6)
    0.000408
    """
    requests = len(prompts) * samples * requests_per_prompt
    prompt_tokens = samples * requests_per_prompt * sum(-(-len(p) // 4) + 7 for p in prompts)
    completion = requests * min(words_tokens, max_tokens)
    cost = None
    if price_in is not None or price_out is not None:
        cost = (prompt_tokens * (price_in or 0) + completion * (price_out or 0)) / 1e6
    note = f" ({requests_per_prompt} per probe in next-word mode)" if requests_per_prompt > 1 else ""
    return Estimate(requests, prompt_tokens, completion, requests * max_tokens, cost, note)
