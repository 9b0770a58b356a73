"""Small readers of a run's files for the report: its manifest, its settings, JSON and
optional CSV files, its completion records, and the template texts it asked.

Each reader is tolerant where the report can do without the file and strict (a one-line
DataError) where it cannot; :func:`stereoprobe.studies.fillin.report.data.load_sentiment` uses them.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stereoprobe.errors import DataError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def read_manifest(run: Path) -> dict[str, Any]:
    """The run's manifest as a plain dict ({} when absent), read and type-checked by the one
    reader of run records (:func:`stereoprobe.manifest.read_manifest`), so a 0.1.0 manifest
    comes out with the current key names (``settings.endpoint``, flat ``settings.temperature``,
    ``catalog.templates`` ...)."""
    from stereoprobe.manifest import read_manifest as read_run_manifest

    manifest = read_run_manifest(run)
    return manifest.to_dict() if manifest is not None else {}


def settings_dict(manifest: dict[str, Any]) -> dict[str, Any]:
    """The manifest's probe settings, flat: ``settings`` (or the older ``parameters``),
    with one level of nested dicts (e.g. the chat backend's ``parameters``) lifted up.

    >>> settings_dict({"settings": {"backend": "openai-chat", "parameters": {"temperature": 0.7}}})
    {'backend': 'openai-chat', 'temperature': 0.7}
    """
    params = manifest.get("settings") or manifest.get("parameters") or {}
    if not isinstance(params, dict):
        return {}
    out: dict[str, Any] = {}
    for k, v in params.items():
        if isinstance(v, dict) and k != "filter":
            out.update({str(k2): v2 for k2, v2 in v.items() if not isinstance(v2, (dict, list)) and str(k2) not in out})
        else:
            out.setdefault(str(k), v)
    return out


def read_json(path: Path, run: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: not valid JSON ({exc}); run `stereoprobe sentiment {run}` again.") from None
    return value if isinstance(value, dict) else {}


def optional_csv(path: Path) -> "pd.DataFrame | None":
    import pandas as pd

    if not path.is_file():
        return None
    try:
        return pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={"word": str, "category": str})
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError):
        return None


def read_records(run: Path) -> list | None:
    """The run's completion records (prompts, statuses), or None for a run without them."""
    if not (run / "completions.jsonl").is_file():
        return None
    from stereoprobe.store import read_completions

    try:
        return read_completions(run)
    except DataError:
        return None


def readable_template(text: str) -> str:
    """``why are <group> so ...`` -> ``why are … so``."""
    return text.replace("<group>", "…").replace(" ...", "").replace("...", "").strip()


@lru_cache(maxsize=1)
def builtin_template_texts() -> dict[str, tuple[str, str]]:
    """Template id -> (format, readable text) from the built-in catalog."""
    from stereoprobe.studies.fillin.catalog import load_catalog

    out = {}
    for templates in load_catalog().templates.values():
        for t in templates:
            out.setdefault(t.template, (t.format, readable_template(t.text)))
    return out
