"""What the generation studies' classifiers that read first names share: the core's name
table (``stereoprobe.names``), loaded on first use unless one is given, and ``describe``
(the classifier's version, the table's source and the classifier's own settings)."""

from __future__ import annotations

from typing import Any, ClassVar


class NameTableClassifier:
    """Base of a classifier that looks first names up; a subclass sets ``version`` and
    ``described`` (what ``describe`` adds after the version and the table's source)."""

    version: ClassVar[str]
    described: ClassVar[dict[str, Any]] = {}

    def __init__(self, names: Any = None) -> None:
        self._names = names

    @property
    def names(self) -> Any:
        """The name table (a ``stereoprobe.names.NameTable``), loaded on first use."""
        if self._names is None:
            from stereoprobe import names

            self._names = names.load()
        return self._names

    def describe(self) -> dict[str, Any]:
        return {"classifier": self.version, "names_table": self.names.source, **self.described}
