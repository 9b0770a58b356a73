"""The hobbies study (Sterlie et al. 2024, seed 001 sections 4.2, 5.2 and 6): what hobbies
does a model give a high-school student called by a female or a male name?

The folder: ``data/`` (``names.csv``: 214 female and 214 male US first names, the rule in
``names.py``; ``labels.csv``: the six hobby labels as word lists), ``catalog.py`` (Template
Prompt 4.2 per name -> probes), ``text.py`` (tokens, content words), ``labels.py`` (a
text's label scores and the words that decided them), ``classify.py`` (the classifier the
generation core stores with each text), ``stats.py`` (word counts per gender, label means
over names, NMI(gender, top label)), ``score.py`` (the tables of ``RUN_DIR/hobbies/``),
``figures.py`` and ``page.py`` (the report), ``w2v.py`` and ``compare.py`` (one Word2Vec
model over compared runs: the she-he projection, Mann-Whitney U and Cohen's d).
"""

from __future__ import annotations

from typing import Any, Mapping

from stereoprobe.generation.study import GenerationStudy


class _RunLabels:
    """What the core's reclassify asks for (``classifier(options)``): the labels a run was
    collected with, read from its manifest, so `reparse` never swaps a user's labels file
    for the default."""

    def __init__(self, run_dir: Any) -> None:
        from stereoprobe.manifest import read_manifest
        from stereoprobe.studies.hobbies.classify import HobbyClassifier
        from stereoprobe.studies.hobbies.score import run_labels

        self._classifier = HobbyClassifier(run_labels(read_manifest(run_dir)), "the run's manifest")

    def classifier(self, options: Mapping[str, Any]) -> Any:
        return self._classifier


class HobbiesStudy(GenerationStudy):
    name = "hobbies"
    title = "Hobbies: what a model says a student called by a female or male name likes (Sterlie et al.)"
    DEFAULTS = {"samples": 10, "temperature": 0.5, "max_tokens": 80, "text_tokens": 35}
    SELECT = GenerationStudy.SELECT | {"labels"}

    def make_probes(self, options: Mapping[str, Any]) -> tuple[list[Any], Any]:
        from stereoprobe.studies.hobbies.catalog import make_probes

        return make_probes(options)

    def classifier(self, options: Mapping[str, Any]) -> Any:
        from stereoprobe.studies.hobbies.catalog import labels_text
        from stereoprobe.studies.hobbies.classify import HobbyClassifier

        return HobbyClassifier.from_text(labels_text(options), str(options.get("labels") or "built-in"))

    def score(self, run_dir: Any, options: Mapping[str, Any]) -> tuple[Any, Any]:
        """The folder study's score, with ``--labels-from FILE.csv`` (labels made elsewhere, brought.py)."""
        from pathlib import Path

        from stereoprobe.studies.hobbies import score

        result = score.score(run_dir, level=options.get("ci", 0.95), n_boot=options.get("n_boot", 2000),
                             seed=options.get("seed", 0), labels_from=options.get("labels_from"))
        return result, score.write_scores(result, Path(run_dir) / self.name)

    def reparse(self, run_dir: Any) -> Any:
        """The stored texts labelled again with the labels the run was collected with."""
        from stereoprobe.generation.reclassify import reclassify

        return reclassify(_RunLabels(run_dir), run_dir)


HobbiesStudy.flags = {**HobbiesStudy.study_flags(),  # the generation options and --labels
                      "score": HobbiesStudy.STEP_FLAGS["score"] | {"labels_from"}}
