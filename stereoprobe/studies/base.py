"""What a study is: the small interface every study folder implements.

A study is one question asked of a model, as in inspect_evals (dataset, solver,
scorer). Each lives in its own folder under ``stereoprobe/studies/``:

- its data (CSV files, quoted and cited) and how they are read into probes;
- how a probe is asked of a backend, and what an answer is (a typed record, checked
  when read back from ``completions.jsonl``);
- how answers are scored into tables, its report page, and how two runs compare.

What every study shares lives outside the folders (the core): the CSV reading and
validation rules (``datafiles.py``), the refusal rule (``refusal.py``), the backends,
``collect`` (workers, resume, Ctrl-C; a study plugs in with a ``StudyRun``), the store
(lock, append-only records, faults), the manifest (which records the study), the
statistics package and the page shell (``page/``: layout, palette, numbers, figures).
The core never imports a study's module, and no study imports another's
(tests/test_boundaries.py).

The CLI finds a study by name (``stereoprobe.studies.get_study``) and calls these
methods; a flag the study does not list in ``flags`` is refused in one line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Mapping, Sequence


class Study:
    """The interface; subclasses fill in the class attributes and the methods."""

    name: ClassVar[str]  # as on the command line and in manifest.json: "fill-in", "jobs"
    title: ClassVar[str]  # one line for `stereoprobe --help` and pages
    #: The answer record stored in completions.jsonl (a frozen dataclass with
    #: ``from_dict``, ``to_dict``, ``key`` and ``status``).
    record: ClassVar[type]
    #: The options of each command this study understands; any other option given on
    #: the command line is refused (``check_flags``).
    flags: ClassVar[Mapping[str, frozenset[str]]]

    def list_probes(self, options: Mapping[str, Any]) -> list[Any]:
        """The probes `stereoprobe probes --study NAME` lists (and collect would ask)."""
        raise NotImplementedError

    def probes_table(self, probes: Sequence[Any]) -> str:
        raise NotImplementedError

    def write_probes(self, probes: Sequence[Any], path: Path) -> None:
        raise NotImplementedError

    def collect(self, options: Mapping[str, Any], progress: bool = True) -> Any:
        """Ask the model; returns a collect.CollectResult."""
        raise NotImplementedError

    def estimate(self, options: Mapping[str, Any]) -> Any:
        """What collect would ask (--dry-run); an estimate.Estimate."""
        raise NotImplementedError

    def run_dir(self, options: Mapping[str, Any]) -> Path:
        """The folder collect writes to: ``--out`` or its default under runs/."""
        raise NotImplementedError

    def score(self, run_dir: Path, options: Mapping[str, Any]) -> tuple[Any, Path]:
        """Score a run: (result, the folder written)."""
        raise NotImplementedError

    def summary(self, result: Any) -> str:
        """A few lines for the terminal about a scoring result."""
        raise NotImplementedError

    def report(self, run_dir: Path, options: Mapping[str, Any]) -> list[str]:
        """Write the run's pages; lines to print."""
        raise NotImplementedError

    def compare(self, runs: Sequence[Path], out: Path, options: Mapping[str, Any]) -> list[str]:
        """Compare runs of this study into ``out``; lines to print."""
        raise NotImplementedError

    def reparse(self, run_dir: Path) -> Any:
        """Parse a chat run's stored replies again (a reparse.ReparseResult); a study whose
        answers are not parsed store-side has nothing to reparse."""
        from stereoprobe.errors import DataError
        from stereoprobe.occupations import article_for

        raise DataError(f"{run_dir} is {article_for(self.name)} {self.name} run: its answers are not parsed from stored replies; "
                        "nothing to reparse.")


    def metrics(self) -> Any:
        """The study's gate metrics: the ``metrics`` module of its folder (``SPECS``,
        ``values``, ``differences``: stereoprobe/gate/values.py), or None if it has none."""
        return self._folder_module("metrics")

    def designs(self) -> Any:
        """The study's named designs: the ``designs`` module of its folder (``designs(options)``:
        stereoprobe/designs.py), or None if it has none."""
        return self._folder_module("designs")

    def paper_figures(self) -> list[Any]:
        """The published figures this study's pages may quote (``data/paper_figures.csv`` in its
        folder, stereoprobe/papers.py), each printed only beside a like-for-like value."""
        from stereoprobe.papers import figures_of

        return figures_of(self)

    def _folder_module(self, stage: str) -> Any:
        import importlib

        name = f"{type(self).__module__}.{stage}"
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                return None
            raise


class FolderStudy(Study):
    """A study whose folder keeps the stages in modules of fixed names, so the shared
    steps need no code of their own (the jobs and coreference studies; a new study
    starts here):

    - ``score.py``: ``score(run_dir, level, n_boot, seed)``, ``write_scores(result, folder)``
      (into ``RUN_DIR/<name>/``) and ``summary(result)``;
    - ``page.py``: ``build_page(run_dir, out=None)`` (``RUN_DIR/report/``);
    - ``compare.py``: ``compare_runs(runs, n_boot, seed)`` (a result with ``summary()``) and
      ``write_comparison(result, out)``.

    Runs go to ``runs/<name>-<model>`` unless ``--out`` says otherwise.
    """

    #: The options of the steps this class runs (a subclass adds its ``probes`` and
    #: ``collect`` options: ``flags = {"probes": ..., "collect": ..., **FolderStudy.STEP_FLAGS}``).
    STEP_FLAGS: ClassVar[Mapping[str, frozenset[str]]] = {
        "score": frozenset({"ci", "n_boot", "seed"}),
        "report": frozenset({"out"}),
        "compare": frozenset({"out_dir", "n_boot", "seed"}),
    }

    def _stage(self, module: str) -> Any:
        import importlib

        return importlib.import_module(f"{type(self).__module__}.{module}")

    def run_dir(self, options: Mapping[str, Any]) -> Path:
        from stereoprobe.backends import EMBEDDED_MODEL
        from stereoprobe.collect import slug

        if options.get("out") is not None:
            return Path(options["out"])
        if options.get("model_file") is not None and options.get("model") is None:
            from stereoprobe.backends.modelfile import model_file_name

            return Path("runs") / f"{self.name}-{slug(model_file_name(options['model_file']))}"
        return Path("runs") / f"{self.name}-{slug(options.get('model') or EMBEDDED_MODEL)}"

    def score(self, run_dir: Path, options: Mapping[str, Any]) -> tuple[Any, Path]:
        stage = self._stage("score")
        result = stage.score(run_dir, level=options.get("ci", 0.95), n_boot=options.get("n_boot", 2000),
                             seed=options.get("seed", 0))
        return result, stage.write_scores(result, Path(run_dir) / self.name)

    def summary(self, result: Any) -> str:
        return self._stage("score").summary(result)

    def report(self, run_dir: Path, options: Mapping[str, Any]) -> list[str]:
        written = self._stage("page").build_page(run_dir, out=options.get("out"))
        return [f"Wrote {written}; open it in a browser."]

    def compare(self, runs: Sequence[Path], out: Path, options: Mapping[str, Any]) -> list[str]:
        from stereoprobe.comparing import distinct_runs

        distinct_runs(runs)  # the command's runs; the gate's differences may take a run as its own baseline
        stage = self._stage("compare")
        result = stage.compare_runs(runs, n_boot=options.get("n_boot", 2000), seed=options.get("seed", 2023))
        written = stage.write_comparison(result, out)
        return [result.summary(), f"Wrote {written}/ (open {written / 'index.html'})"]


def read_run(run_dir: str | Path, study: str, record: type) -> tuple[Any, list]:
    """A run's manifest and records (``record``: the study's type); a directory without a
    manifest, or a run of another study, is refused in one line."""
    from stereoprobe.errors import DataError
    from stereoprobe.manifest import read_manifest
    from stereoprobe.store import read_completions

    run = Path(run_dir)
    manifest = read_manifest(run)
    if manifest is None:
        raise DataError(f"{run}: no manifest.json; run `stereoprobe collect --study {study} --out {run}` first.")
    if manifest.study != study:
        from stereoprobe.occupations import article_for

        raise DataError(f"{run} is {article_for(manifest.study)} {manifest.study} run, not {article_for(study)} {study} "
                        f"run; `stereoprobe score {run}` scores it "
                        "as such.")
    return manifest, read_completions(run, record)

def read_scores(run_dir: str | Path, study: str, tables: Sequence[str], dtype: Mapping[str, Any] | None = None,
                ) -> dict[str, Any]:
    """What ``stereoprobe score`` wrote for a study (``RUN_DIR/<study>/``): ``meta`` (its
    meta.json) and each of ``tables`` as a DataFrame (empty where the CSV has no rows); a
    run not scored yet, or a missing table, is refused in one line."""
    import json

    import pandas as pd

    from stereoprobe.errors import DataError

    run = Path(run_dir)
    folder = run / study
    if not (folder / "meta.json").is_file():
        raise DataError(f"{run}: no {study}/ scores; run `stereoprobe score {run}` first.")
    out: dict[str, Any] = {"meta": json.loads((folder / "meta.json").read_text(encoding="utf-8"))}
    for name in tables:
        try:
            out[name] = pd.read_csv(folder / f"{name}.csv", keep_default_na=False, na_values=[""], dtype=dtype)
        except pd.errors.EmptyDataError:
            out[name] = pd.DataFrame()
        except FileNotFoundError:
            raise DataError(f"{folder}: {name}.csv is missing; run `stereoprobe score {run}` again.") from None
    return out


def check_flags(study: Study, command: str, given: Sequence[str]) -> None:
    """Refuse, in one line, an option of ``command`` that ``study`` does not use.

    ``given``: the option names (click's parameter names) set on the command line.
    """
    from stereoprobe.errors import DataError

    allowed = study.flags.get(command, frozenset())
    wrong = [name for name in given if name not in allowed]
    if wrong:
        flags = ", ".join(_flag(n) for n in wrong)
        verb = "does" if len(wrong) == 1 else "do"
        raise DataError(
            f"{flags} {verb} not apply to the {study.name} study; drop {'it' if len(wrong) == 1 else 'them'} "
            f"(`stereoprobe {command} --help` says which options each study takes)."
        )


def _flag(name: str) -> str:
    """The option as the user types it (``--format``, ``--bootstrap``), not click's parameter
    name (``fmt``, ``n_boot``), read from the running command."""
    import click

    ctx = click.get_current_context(silent=True)
    for param in ctx.command.params if ctx is not None else ():
        if param.name == name:
            longest = max(param.opts, key=len)
            if longest.startswith("--"):
                return longest
    return "--" + name.replace("_", "-")
