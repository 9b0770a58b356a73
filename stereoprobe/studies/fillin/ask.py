"""How the fill-in study asks one probe and records the answer (``collect``'s
``StudyRun`` for fill-in): the backend's answer, a chat reply parsed store-side into
words (``parse.parse_reply``, with the group's own words never answers), and the
catalog's identity for the manifest.
"""

from __future__ import annotations

import time
from typing import Sequence

from stereoprobe.backends.base import Backend
from stereoprobe.backends.chat_logprobs import word_probabilities
from stereoprobe.collect import StudyRun, endpoint_of, is_timeout
from stereoprobe.errors import BackendError
from stereoprobe.manifest import CatalogInfo
from stereoprobe.records import Completion, Probe
from stereoprobe.studies.fillin.catalog import Catalog, default_catalog_dir
from stereoprobe.studies.fillin.parse import PARSER_VERSION, parse_reply


def study_run(catalog: Catalog | None, probes: Sequence[Probe], mode: str, design: str | None = None) -> StudyRun:
    """What collect needs to ask fill-in probes of a backend in ``mode`` (``design``: the
    named design the run asks, stereoprobe.designs)."""
    return StudyRun(
        name="fill-in", record=Completion, ask=ask, score_command="sentiment",
        catalog_info=lambda old: catalog_info(catalog, probes, old),
        parser_version=PARSER_VERSION if mode == "chat" else None, design=design,
    )


def ask(backend: Backend, probe: Probe, sample: int, preflight: bool = False) -> tuple[Completion, bool]:
    """One probe's record, and whether its request timed out."""
    start = time.perf_counter()
    base = dict(
        probe_id=probe.probe_id,
        sample=sample,
        category=probe.category,
        group=probe.group,
        template=probe.template,
        format=probe.format,
        prompt=backend.prompt(probe),
    )
    try:
        answer = backend.ask(probe)
    except BackendError:
        raise
    except Exception as exc:  # stored as this probe's error; the run goes on
        if preflight and isinstance(exc, ConnectionError):
            # the very first request cannot connect: the endpoint is wrong or down
            raise BackendError(
                f"Cannot reach {endpoint_of(backend)} ({exc}); check --base-url and that the server is running."
            ) from None
        failed = Completion(
            **base,
            error=str(exc) or type(exc).__name__,
            attempts=backend.attempts_of_last_ask(),
            latency_s=round(time.perf_counter() - start, 4),
        )
        return failed, is_timeout(exc)
    words, refused = list(answer.words), answer.refused
    probabilities = list(answer.probabilities) if answer.probabilities is not None else None
    if backend.mode == "chat" and not refused:  # parsing is a store-side step
        parsed = parse_reply(answer.raw, probe_text=probe.text, group=probe.group)
        words, refused = parsed.words, parsed.refused
        probabilities = word_probabilities(answer.raw, words, answer.logprobs) if words else None
    return Completion(
        **base,
        words=words,
        probabilities=probabilities,
        raw=answer.raw,
        refused=refused,
        attempts=backend.attempts_of_last_ask(),
        latency_s=round(time.perf_counter() - start, 4),
        usage=answer.usage,
        response=answer.response,
        logprobs=answer.logprobs,
    ), False


def catalog_info(catalog: Catalog | None, probes: Sequence[Probe], old: CatalogInfo | None) -> CatalogInfo | None:
    """The catalog's identity and the texts of the templates this run used (old ones kept)."""
    if catalog is None:
        return old
    where = "built-in" if catalog.path.resolve() == default_catalog_dir().resolve() else str(catalog.path)
    used = {(p.category, p.template) for p in probes}
    templates = dict(old.templates) if old else {}
    for category, template_set in catalog.categories.items():
        for t in catalog.templates[template_set]:
            if (category, t.template) in used:
                templates[t.template] = {"text": t.text, "format": t.format}
    return CatalogInfo(
        path=where, sha256=catalog.sha256, probes=len(catalog.probes()),
        template_family=catalog.family, templates=templates,
    )
