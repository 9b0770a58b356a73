"""The stories study: Marin & Eger (2024, seed 000), section 3.4, Tables 2 and 4.

A chat model continues five story openings that stop right where the protagonist's name
comes ("Once upon a time there was a baker called"), after 000's storyteller system
message and instruction; 20 stories per prompt and profession at 000's temperature 0.6;
the protagonist's first name is read from the story (``protagonist.py``) and its gender
looked up in the core's name table (majority gender, as 000; unknown names reported).
Outputs: the share of female names per profession and prompt with intervals (Table 4),
the most frequent names, NMI(profession, gender) against its permutation null.

Why a study of its own and not a mode of the jobs study: the jobs study reads the
probability of the next word after the same prompts (one record per prompt, no text);
000 sampled whole stories, read the name from each, and reported shares over 20 stories
per prompt and profession for Table 4's 19 professions. That is the generation core's
record, settings (samples, temperature) and statistics; a mode would mix two kinds of
records in one run. The jobs study keeps its probability of the name (its story rows).

The folder: ``data/`` (prompts, messages, professions; each file says where it came
from), ``catalog.py``, ``protagonist.py``, ``score.py``, ``page.py``, ``compare.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from stereoprobe.generation.study import GenerationStudy


class StoriesStudy(GenerationStudy):
    name = "stories"
    title = "Stories: the gender of the names a model gives a story's protagonist, per profession (Marin & Eger 2024)"
    DEFAULTS = {"samples": 20, "temperature": 0.6, "max_tokens": 300, "text_tokens": 300}
    SELECT = GenerationStudy.SELECT - {"instruction", "instruction_file"} | {"prompt"}
    flags = {"probes": SELECT | {"output"}, "collect": SELECT | GenerationStudy.study_flags()["collect"]
             - {"instruction", "instruction_file"}, **GenerationStudy.STEP_FLAGS,
             "score": GenerationStudy.STEP_FLAGS["score"] | {"reading", "names_file"}}

    def make_probes(self, options: Mapping[str, Any]) -> tuple[list[Any], Any]:
        from stereoprobe.studies.stories.catalog import make_probes

        return make_probes(options)

    def score(self, run_dir: Path, options: Mapping[str, Any]) -> tuple[Any, Path]:
        """As every study's, with the reading of the protagonist (``--reading``: ours or Marin &
        Eger's, which needs ``--names-file``, the user's UCI table; docs/stories.md)."""
        from stereoprobe.studies.stories.score import score, write_scores

        result = score(run_dir, level=options.get("ci", 0.95), n_boot=options.get("n_boot", 2000),
                       seed=options.get("seed", 0), reading=options.get("reading") or "stereoprobe",
                       names_file=options.get("names_file"))
        return result, write_scores(result, Path(run_dir) / self.name)

    def classifier(self, options: Mapping[str, Any]) -> Any:
        from stereoprobe.studies.stories.protagonist import ProtagonistClassifier

        return ProtagonistClassifier()
