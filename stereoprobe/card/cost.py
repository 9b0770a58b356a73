"""What a run's design costs in interval width, against the study's default design.

A ``quick`` design asks fewer prompts or samples, so its intervals are wider; the card says
by how much. Where the suite recorded a measured figure (``suite.json``'s ``width_cost``, the
``Design``'s: the median ratio of a study's gate intervals on real runs of both designs,
docs/designs.md), the card quotes it. Otherwise it computes the figure from the sizes: the default design's answers (its
prompts, listed by the study for the suite's own options without the design's, times its
samples) against the run's, and the width ratio sqrt(default / run), the rule for
independent answers. Answers of one profession or group are not independent, so this is an
approximation; the line says so.

>>> ratio_line("quick", 60, 1, 2292, 1)
'The quick design asks 60 answers (60 prompts x 1 sample) where the default design asks 2,292 (2,292 x 1): intervals about 6.2 times as wide (the square root of 2,292 / 60, as if every answer were independent).'
"""

from __future__ import annotations

import math
from typing import Any

from stereoprobe.page.numbers import counted

def ratio(prompts: int, samples: int, default_prompts: int, default_samples: int) -> float:
    """The width ratio sqrt(default answers / the run's)."""
    return math.sqrt(default_prompts * default_samples / (prompts * samples))


def ratio_line(design: str, prompts: int, samples: int, default_prompts: int, default_samples: int) -> str:
    run, default = prompts * samples, default_prompts * default_samples
    if run == default:
        return f"The {design} design asks as many answers as the default design ({run:,}): its intervals are as wide."
    ratio = math.sqrt(default / run)
    how = "wide" if ratio >= 1 else "narrow"
    size = ratio if ratio >= 1 else 1 / ratio
    return (f"The {design} design asks {run:,} answers ({counted(prompts, 'prompt')} x {counted(samples, 'sample')}) "
            f"where the default design asks {default:,} ({default_prompts:,} x {default_samples:,}): intervals about "
            f"{size:.1f} times as {how} (the square root of {default:,} / {run:,}, as if every answer were "
            "independent).")


def _design(study: Any, options: dict[str, Any], name: str) -> Any:
    """The run's design: as the study lists it for the suite's options, or, where those options
    are the design's own already (a quick subset's catalog), for none."""
    from stereoprobe.designs import designs_of
    from stereoprobe.errors import DataError

    for given in (options, {}):
        try:
            found = designs_of(study, given).get(name)
        except DataError:
            found = None
        if found is not None:
            return found
    return None


def limited_line(design: str, limit: int, prompts: int, samples: int, default_prompts: int,
                 default_samples: int) -> str:
    """The line of a run that asked only the first ``limit`` of its design's ``prompts`` (``--limit``).

    >>> limited_line("quick", 60, 786, 1, 2292, 1)
    "Only the first 60 of the quick design's 786 prompts were asked (--limit, a first look): 60 answers where the default design asks 2,292 (2,292 x 1): intervals about 6.2 times as wide (the square root of 2,292 / 60, as if every answer were independent)."
    """
    run, default = limit * samples, default_prompts * default_samples
    return (f"Only the first {limit:,} of the {design} design's {counted(prompts, 'prompt')} were asked (--limit, a "
            f"first look): {counted(run, 'answer')} where the default design asks {default:,} ({default_prompts:,} x "
            f"{default_samples:,}): intervals about {ratio(limit, samples, default_prompts, default_samples):.1f} times "
            f"as wide (the square root of {default:,} / {run:,}, as if every answer were independent).")


def design_cost(study: Any, entry: Any, manifest: Any) -> tuple[str | None, float | None]:
    """One line on the width a run's design costs, and the width ratio (None, None for the
    default design asked whole; a ratio of None where it is not known). A run the suite asked
    with ``--limit`` (only its design's first N prompts) is costed on the prompts it asked: the
    design's measured figure is not its own."""
    from stereoprobe.designs import DEFAULT
    from stereoprobe.errors import DataError

    name = manifest.design or DEFAULT
    options = {k: v for k, v in dict(entry.options).items() if k not in ("given", "design")}
    limit = options.pop("limit", None)
    if name == DEFAULT and not limit:
        return None, None
    design = _design(study, options, name) if name != DEFAULT else None
    if design is None and name != DEFAULT:
        return f"The {name} design's cost in interval width is not known here (the study lists no {name} design).", None
    own = design.options if design is not None else {}
    if limit:
        try:
            limit = limit if int(limit) < len(study.list_probes({**options, **own})) else None
        except (DataError, KeyError, TypeError, ValueError):
            pass
    if name == DEFAULT and not limit:
        return None, None
    measured = getattr(entry, "width_cost", None) or getattr(design, "width_cost", None)
    if measured and not limit:
        return (f"The {name} design's 95% intervals are about {measured:.1f} times as {'wide' if measured >= 1 else 'narrow'}"
                " as the default design's, as measured on runs of both (docs/designs.md).", float(measured))
    defaults = getattr(study, "DEFAULTS", {})
    default_samples = int(defaults.get("samples", 1)) if "samples" in own else manifest.settings.samples
    default_options = {k: v for k, v in options.items() if k not in own}
    try:
        default_prompts = len(study.list_probes(default_options))
        prompts = len(study.list_probes({**default_options, **own}))
    except (DataError, KeyError, TypeError, ValueError) as exc:
        return f"The {name} design's cost in interval width could not be worked out ({exc}).", None
    if not prompts or not default_prompts:
        return None, None
    if limit and int(limit) < prompts:
        sizes = (int(limit), manifest.settings.samples, default_prompts, default_samples)
        return limited_line(name, int(limit), prompts, *sizes[1:]), ratio(*sizes)
    if name == DEFAULT:
        return None, None
    sizes = (prompts, manifest.settings.samples, default_prompts, default_samples)
    return ratio_line(name, *sizes), ratio(*sizes)
