"""The jobs study's named designs (stereoprobe/designs.py; docs/designs.md): `quick`, a
documented subset for `stereoprobe suite`, and `published`, the paper's own settings."""

from __future__ import annotations

from typing import Any, Mapping

from stereoprobe.designs import Design


def designs(options: Mapping[str, Any]) -> dict[str, Design]:
    return {d.name: d for d in (quick(options), published(options)) if d is not None}


def quick(options: Mapping[str, Any]) -> Design | None:
    return None  # TODO(suite): the quick design


def published(options: Mapping[str, Any]) -> Design | None:
    return None  # TODO(issue 34): the published design
