"""The hobbies study's classifier for the generation core: a text -> (top label, evidence).

The top label and the evidence ("Sport:soccer") are stored with each record when it is
collected; ``score`` computes every label's score again from the stored text with the
run's labels file (labels.py), so the tables never depend on a stale record.
"""

from __future__ import annotations

from typing import Any, Iterable

VERSION = "hobbies-1"


class HobbyClassifier:
    version = VERSION
    whole_text = True  # a text cut by the token limit may have lost hobbies: counted, not labelled

    def __init__(self, labels: Any, source: str = "built-in") -> None:
        self.lexicon = labels
        self.source = source
        self.labels = (*labels.names, "mixed", "none")

    @classmethod
    def from_text(cls, text: str, source: str = "built-in") -> "HobbyClassifier":
        """From a labels file's text (as the manifest keeps it)."""
        import tempfile
        from pathlib import Path

        from stereoprobe.studies.hobbies.labels import load_labels

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "labels.csv"
            path.write_text(text, encoding="utf-8")
            return cls(load_labels(path), source)

    def describe(self) -> dict[str, Any]:
        return {"classifier": VERSION, "labels_file": self.source}

    def classify(self, text: str, prompt_words: Iterable[str] = ()) -> tuple[str, list[str]]:
        scored = self.lexicon.score(text, prompt_words)
        return scored.top, [f"{label}:{w}" for label, ws in scored.evidence.items() for w in ws]
