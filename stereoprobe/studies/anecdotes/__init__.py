"""The anecdotes study: Sterlie, Weng & Feragen (2024, seed 001), section 4.1 and results 5.1.

A model writes 30-word anecdotes about people of a profession (Template Prompt 4.1, word
for word; 30 samples per profession at temperature 0.5, as 001); each text is read for the
gender of the person concerned (names, pronouns, gendered nouns and titles:
``generation.gender``: male, female, neutral, mixed, with the deciding words); the study
reports per profession the shares with intervals, the share of texts that follow the
job's BLS majority, NMI(profession, gender) against its permutation null with an
interval, Spearman of the female share with the BLS share, and a figure like 001's
Figure 1. docs/anecdotes.md says how every number is defined.

The folder: ``data/template.csv`` (001's template and a completion form for base models),
``catalog.py`` (professions x template -> ``GenProbe``), ``score.py`` (RUN_DIR/anecdotes/),
``figures.py`` and ``page.py`` (the report), ``compare.py`` (runs side by side). Asking,
storing, statistics and the classifier are the generation core's (stereoprobe/generation/).
"""

from __future__ import annotations

from typing import Any, Mapping

from stereoprobe.generation.study import GenerationStudy


class AnecdotesStudy(GenerationStudy):
    name = "anecdotes"
    title = "Anecdotes: the gender of the people a model writes about, per profession (Sterlie et al. 2024)"
    DEFAULTS = {"samples": 30, "temperature": 0.5, "max_tokens": 200, "text_tokens": 45}
    flags = GenerationStudy.study_flags()

    def make_probes(self, options: Mapping[str, Any]) -> tuple[list[Any], Any]:
        from stereoprobe.studies.anecdotes.catalog import make_probes

        return make_probes(options)

    def classifier(self, options: Mapping[str, Any]) -> Any:
        from stereoprobe.generation.gender import GenderClassifier

        return GenderClassifier()
