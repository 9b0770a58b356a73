"""The run record: RUN_DIR/manifest.json as typed, frozen records (docs/design.md).

One writer (collect, through :func:`write_manifest`) and one reader
(:func:`read_manifest`), used by sentiment, report and the Python API. Every backend's
settings use the same key names (``endpoint``, ``timeout``, ``max_retries`` ...);
what only one backend has (the local model's file and filter, the remote next-word
ranking) sits in ``settings.options``. Manifests written by 0.1.0 (``base_url``,
``timeout_s``, chat ``parameters`` nested) still read.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping

from stereoprobe.errors import DataError

VERSION = 2  # of this record's layout; 0.1.0 manifests have no version and read as 1
STATUSES = ("running", "complete", "stopped")
DEFAULT_FAMILY = "paper"
# Settings that may change between sessions of one run without changing its answers.
VOLATILE = frozenset({"timeout", "max_retries"})
# reply_logprobs: asking a chat endpoint for its reply's logprobs does not change the reply
VOLATILE_OPTIONS = frozenset({"n_threads", "workers", "llama_cpp_python", "reply_logprobs"})


@dataclass(frozen=True)
class BackendSettings:
    """How the answers were asked; the same keys for every backend."""

    backend: str  # "openai-chat", "openai-completions", "local"
    mode: str  # "chat" or "next-word"
    model: str | None
    endpoint: str | None = None  # None for the embedded model
    timeout: float | None = None
    max_retries: int | None = None
    samples: int = 1
    temperature: float | None = None  # chat only
    max_tokens: int | None = None  # chat only
    top_p: float | None = None  # chat only
    instruction: str | None = None  # chat only, as sent (debias prefix included)
    debias: int | None = None  # Mattern et al.'s prefix number, chat only
    options: Mapping[str, Any] = field(default_factory=dict)  # backend-specific

    @classmethod
    def from_describe(cls, d: Mapping[str, Any]) -> "BackendSettings":
        """From a backend's describe() (or a 0.1.0 manifest's settings)."""
        d = dict(d)
        params = d.pop("parameters", None) or {}

        def pick(*keys: str) -> Any:
            values = [d.pop(k) for k in keys if k in d]
            return next((v for v in values if v is not None), None)

        out = cls(
            backend=str(pick("backend") or "unknown"),
            mode=str(pick("mode") or "chat"),
            model=pick("model"),
            endpoint=pick("endpoint", "base_url"),
            timeout=pick("timeout", "timeout_s"),
            max_retries=pick("max_retries"),
            samples=pick("samples") or 1,
            temperature=params.get("temperature", pick("temperature")),
            max_tokens=params.get("max_tokens", pick("max_tokens")),
            top_p=params.get("top_p", pick("top_p")),
            instruction=pick("instruction"),
            debias=pick("debias"),
        )
        options = pick("options") or {}
        if not isinstance(options, dict):
            raise TypeError("settings.options must be an object")
        out = replace(out, options={**d, **options})
        out.check()
        return out

    def check(self) -> None:
        """Raise TypeError naming a setting of the wrong JSON type."""
        number = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)  # noqa: E731
        whole = lambda v: isinstance(v, int) and not isinstance(v, bool)  # noqa: E731
        kinds = {"model": (str, "a string"), "endpoint": (str, "a string"), "instruction": (str, "a string"),
                 "timeout": (number, "a number"), "temperature": (number, "a number"), "top_p": (number, "a number"),
                 "max_retries": (whole, "a whole number"), "max_tokens": (whole, "a whole number"),
                 "debias": (whole, "a whole number"), "samples": (whole, "a whole number")}
        for name, (kind, what) in kinds.items():
            value = getattr(self, name)
            ok = kind(value) if callable(kind) and not isinstance(kind, type) else isinstance(value, kind)
            if value is not None and not ok:
                raise TypeError(f"settings.{name} must be {what}, not {value!r}")

    def identity(self) -> dict[str, Any]:
        """What must not change between sessions of one run."""
        out = {k: v for k, v in asdict(self).items() if k not in VOLATILE and k != "options"}
        out.update({f"options.{k}": v for k, v in self.options.items() if k not in VOLATILE_OPTIONS})
        return out


@dataclass(frozen=True)
class CatalogInfo:
    """The probe catalog a run used: part of the run's identity."""

    path: str  # "built-in" or the directory given with --catalog
    sha256: str  # of all the catalog's expanded probes
    probes: int
    template_family: str = DEFAULT_FAMILY
    templates: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # id -> {text, format}

    def identity(self) -> tuple[str, str]:
        return (self.sha256, self.template_family)


@dataclass(frozen=True)
class RunManifest:
    settings: BackendSettings
    catalog: CatalogInfo | None = None
    study: str = "fill-in"  # stereoprobe.studies; manifests written before studies existed read as fill-in
    status: str = "running"
    version: int = VERSION
    stereoprobe_version: str | None = None
    created_at: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    parser_version: str | None = None  # of the chat reply parser that made `words`
    counts: Mapping[str, int] = field(default_factory=dict)
    sessions: tuple[Mapping[str, Any], ...] = ()
    batch: Mapping[str, Any] | None = None  # a batch run's state (stereoprobe/batch/run.py)
    design: str | None = None  # stereoprobe.designs: default, quick, published; None: written before designs

    @property
    def model(self) -> str | None:
        return self.settings.model

    @property
    def mode(self) -> str:
        return self.settings.mode

    @property
    def endpoint(self) -> str | None:
        return self.settings.endpoint

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["settings"] = asdict(self.settings)
        out["catalog"] = asdict(self.catalog) if self.catalog else None
        out["counts"], out["sessions"] = dict(self.counts), [dict(s) for s in self.sessions]
        if self.batch is None:  # a live run's manifest is as before
            del out["batch"]
        # the top-level names 0.1.0 readers look for
        return {"version": VERSION, "model": self.model, "mode": self.mode, "endpoint": self.endpoint} | out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "manifest.json") -> "RunManifest":
        try:
            top = {k: data.get(k) for k in ("model", "mode", "endpoint")}  # 0.1.0 and hand-made
            settings = BackendSettings.from_describe(top | dict(data.get("settings") or {}))
            if settings.instruction is None and data.get("instruction"):
                settings = replace(settings, instruction=data["instruction"])
            cat = data.get("catalog")
            catalog = CatalogInfo(**{k: v for k, v in cat.items() if k in CatalogInfo.__dataclass_fields__}) if cat else None
            status = data.get("status") or "stopped"
            if status not in STATUSES:
                raise ValueError(f"status {status!r} is not one of {', '.join(STATUSES)}")
            study = data.get("study") or "fill-in"
            if not isinstance(study, str):
                raise TypeError(f"study must be a string, not {study!r}")
            return cls(
                settings=settings,
                catalog=catalog,
                study=study,
                status=status,
                version=int(data.get("version") or 1),
                stereoprobe_version=data.get("stereoprobe_version"),
                created_at=data.get("created_at"),
                started_at=data.get("started_at"),
                finished_at=data.get("finished_at"),
                parser_version=data.get("parser_version"),
                counts=dict(data.get("counts") or {}),
                sessions=tuple(data.get("sessions") or ()),
                batch=data.get("batch") if isinstance(data.get("batch"), dict) else None,
                design=_design(data.get("design")),
            )
        except (TypeError, ValueError, AttributeError) as exc:
            raise DataError(f"{where}: not a run manifest ({exc}); restore it, or collect the run again into a new "
                            "--out directory.") from None


def _design(value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"design must be a string, not {value!r}")
    return value


def manifest_path(run_dir: str | Path) -> Path:
    return Path(run_dir) / "manifest.json"


def read_manifest(run_dir: str | Path) -> RunManifest | None:
    """The run's manifest, or None when it has none. A "running" manifest whose run
    directory is not locked (the run was killed, or the disk was full) reads as "stopped"."""
    path = manifest_path(run_dir)
    if not path.is_file():
        return None
    from stereoprobe.store import read_json_object

    data = read_json_object(path, "a run manifest", "restore it, or collect the run again into a new --out directory")
    m = RunManifest.from_dict(data, str(path))
    if m.status == "running" and not _locked(Path(run_dir)):
        m = replace(m, status="stopped")
    return m


def scored_stamp(manifest: RunManifest) -> dict[str, Any]:
    """What every study's scores keep of their run and of themselves: when its collect
    started, whether it had finished (``collect_status``: a page of a run stopped early says
    so, :func:`stereoprobe.page.shell.meta_line`), which stereoprobe scored it and when."""
    from stereoprobe import __version__
    from stereoprobe.store import now_iso

    return {"started_at": manifest.started_at, "collect_status": manifest.status,
            "stereoprobe_version": __version__, "created_at": now_iso()}


def unfinished(status: str | None) -> bool:
    """Whether a run's collect had not answered every prompt (its numbers are of the prompts
    answered so far, which need not be a fair part of the design).

    >>> unfinished("stopped"), unfinished("running"), unfinished("complete"), unfinished(None)
    (True, True, False, False)
    """
    return status in ("stopped", "running")


def write_manifest(run_dir: str | Path, manifest: RunManifest) -> None:
    from stereoprobe.store import atomic_write

    atomic_write(manifest_path(run_dir), json.dumps(manifest.to_dict(), indent=2, ensure_ascii=False) + "\n")


def _locked(run_dir: Path) -> bool:
    from stereoprobe.store import is_locked

    return is_locked(run_dir)
