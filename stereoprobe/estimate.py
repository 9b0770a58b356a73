"""What a collect run would ask, in requests, tokens and cost, without asking anything."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

# Remote next-word mode (backends/nextword_remote.py; docs/nextword.md): one request for the
# candidates and on average 0.8 to complete words that are not whole, per probe (measured:
# 1.81 on 126 probes of all categories against llama-cpp-python's server); plus one per
# distinct word the phrase filter judges, once per run.
NEXTWORD_REQUESTS_PER_PROBE = 1.8


def nextword_judgements(probes: int) -> int:
    """Distinct words a next-word run of ``probes`` probes judges (one request each).

    Fitted to the embedded model's runs: 228 words in 200 probes, about 400 in all 2,292.

    >>> [nextword_judgements(n) for n in (200, 2292)]
    [228, 400]
    """
    return round(431 * probes / (178 + probes)) if probes > 0 else 0


@dataclass
class Estimate:
    requests: int
    prompt_tokens: int
    completion_tokens: int
    completion_tokens_max: int
    cost: float | None
    note: str = ""
    answers: int = 0  # the records a run stores: prompts x samples (requests can be fewer: n per request)

    def priced(self, price_in: float | None, price_out: float | None) -> float | None:
        """The cost at these prices per million tokens (None without prices).

        >>> Estimate(2, 1_000_000, 500_000, 600_000, None).priced(0.15, 0.6)
        0.45
        """
        if price_in is None and price_out is None:
            return None
        return (self.prompt_tokens * (price_in or 0) + self.completion_tokens * (price_out or 0)) / 1e6

    def summary(self) -> str:
        """The dry run's line.

        >>> Estimate(1, 54, 40, 300, None).summary()
        '1 request; about 54 prompt tokens and 40 completion tokens (at most 300). Nothing was asked (--dry-run).'
        """
        from stereoprobe.page.numbers import counted

        text = (
            f"{'about ' if self.note else ''}{counted(self.requests, 'request')}{self.note}; "
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
    requests_per_prompt: float = 1,
    extra_requests: int = 0,
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
    requests = round(len(prompts) * samples * requests_per_prompt) + extra_requests
    prompt_tokens = round(requests / max(1, len(prompts)) * sum(-(-len(p) // 4) + 7 for p in prompts))
    completion = requests * min(words_tokens, max_tokens)
    per = requests / max(1, len(prompts) * samples)
    note = f" ({per:.1f}".removesuffix(".0") + " per probe in next-word mode)" if requests_per_prompt != 1 or extra_requests else ""
    out = Estimate(requests, prompt_tokens, completion, requests * max_tokens, None, note, len(prompts) * samples)
    out.cost = out.priced(price_in, price_out)
    return out
