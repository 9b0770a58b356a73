"""`stereoprobe reparse RUN_DIR` for a generation run: the stored texts classified again.

Each stored text gets the current classifier's label and evidence (and the current rules
for empty, truncated and refused texts, ``ask.label_fields``); a record that comes out
the same is kept byte for byte; failed records have nothing to classify.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from stereoprobe.generation.ask import label_fields, prompt_words
from stereoprobe.generation.records import GenRecord


def reclassify(study: Any, run_dir: Path) -> Any:
    from stereoprobe.reparse import rewrite

    classifier = study.classifier({})

    def again(rec: GenRecord) -> GenRecord:
        if rec.error is not None or rec.text is None:
            return rec
        api_refusal = rec.refused and rec.problem == "refused" and rec.label is None and \
            (rec.response or {}).get("refusal") is True
        found = label_fields(rec.text, rec.finish_reason, api_refusal, classifier, prompt_words(rec.group, rec.prompt))
        if all(getattr(rec, k) == v for k, v in found.items()):
            return rec
        return replace(rec, **found)

    return rewrite(run_dir, GenRecord, again, classifier.version, "score")
