"""What a suite asks and costs (``--dry-run``), and which of its studies a batch can carry (``--batch``).

Each study's numbers are its own ``--dry-run``'s (``Study.estimate``: requests, tokens, and the
cost at the given prices per million tokens, ``Estimate.priced``); the batch price is the
providers' (``batch.BATCH_PRICE``, half the live price) for the studies a batch can carry.
Whether a batch can carry a study is asked of the batch step itself: the study's collect runs
as a batch dry run of one probe (nothing is asked or written), and the batch module's one-line
refusal, if any, is the reason (the generation studies ask several texts per request; the
embedded model and model files run in-process).

>>> row = StudyCost("jobs", 520, 520, 29_264, 2_600, 2_600, 0.006, None)
>>> row.batch_cost()
0.003
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from stereoprobe.errors import DataError


@dataclass(frozen=True)
class StudyCost:
    key: str
    answers: int
    requests: int
    prompt_tokens: int
    completion_tokens: int
    completion_tokens_max: int
    cost: float | None  # live, at the given prices
    unbatched: str | None  # why a batch cannot carry it (None: it can)

    def batch_cost(self) -> float | None:
        from stereoprobe.batch import BATCH_PRICE

        if self.cost is None or self.unbatched is not None:
            return None
        return round(self.cost * BATCH_PRICE, 12)


def batch_refusal(planned: Any, model: Any, provider: str = "openai") -> str | None:
    """Why ``provider``'s batches cannot carry this planned study (None: they can); asks nothing."""
    from stereoprobe.batch import BatchSpec, using
    from stereoprobe.batch.seam import IN_PROCESS
    from stereoprobe.studies import get_study

    if not model.served:
        return IN_PROCESS
    try:
        with using(BatchSpec("dry-run", provider=provider)):
            get_study(planned.study).collect({**planned.options, "limit": 1}, progress=False)
    except DataError as exc:
        return str(exc)
    return None


def suite_costs(plan: Any, price_in: float | None = None, price_out: float | None = None,
                provider: str = "openai") -> list[StudyCost]:
    """One row per planned study (module docstring)."""
    out = []
    for p in plan.studies:
        e = p.estimate
        out.append(StudyCost(p.key, e.answers, e.requests, e.prompt_tokens, e.completion_tokens,
                             e.completion_tokens_max, e.priced(price_in, price_out),
                             batch_refusal(p, plan.model, provider)))
    return out


def batch_total_note(rows: Sequence[StudyCost]) -> str | None:
    """What the batch column's total holds when some studies cannot be batched (None when all can, or none).

    >>> batch_total_note([StudyCost("a", 1, 1, 1, 1, 1, 0.1, None), StudyCost("hobbies", 1, 1, 1, 1, 1, 0.1, "n")])
    'The batch total counts hobbies at the live price: it cannot be batched.'
    """
    live = [r.key for r in rows if r.unbatched is not None]
    if not live or len(live) == len(rows):
        return None
    from stereoprobe.card.words import listing

    they = "they" if len(live) > 1 else "it"
    return f"The batch total counts {listing(live)} at the live price: {they} cannot be batched."


def cost_table(rows: Sequence[StudyCost], priced: bool) -> str:
    """The rows and their total as a plain-text table."""
    head = ["study", "answers", "requests", "prompt tokens", "completion tokens (at most)"]
    if priced:
        head += ["cost live", "cost batch"]

    def cells(r: StudyCost | None) -> list[str]:
        rows_ = [r] if r is not None else list(rows)
        total = lambda f: sum(getattr(x, f) for x in rows_)  # noqa: E731
        out = [r.key if r else "total", f"{total('answers'):,}", f"{total('requests'):,}", f"{total('prompt_tokens'):,}",
               f"{total('completion_tokens'):,} ({total('completion_tokens_max'):,})"]
        if priced:
            out.append(f"{sum(x.cost or 0 for x in rows_):.4f}")
            batch = [x.batch_cost() for x in rows_]
            out.append("live only" if all(b is None for b in batch) else
                       f"{sum(b if b is not None else (x.cost or 0) for b, x in zip(batch, rows_)):.4f}")
        return out

    table = [head, *(cells(r) for r in rows), cells(None)]
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
                     for row in table)
