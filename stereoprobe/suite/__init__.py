"""`stereoprobe suite`: every study of one model in one folder (docs/suite.md).

- ``record.py``: ``suite.json``, the suite's typed record (which model, which design, each
  study's run folder, state, counts and times), its one reader and writer;
- ``plan.py``: which studies a suite asks, with which options, in which folder
  (``plan_suite``), bad input refused before anything is created;
- ``run.py``: each study collected, scored and reported, Ctrl-C and kill between studies, the
  card (``run_suite``);
- ``progress.py``: one progress display for the whole suite (``SuiteProgress``);
- ``cost.py``: ``--dry-run``'s requests, tokens and costs, and which studies a batch can carry.

From Python::

    from stereoprobe.suite.plan import ModelSpec, plan_suite
    from stereoprobe.suite.run import run_suite

    plan = plan_suite(ModelSpec(model="gpt-4o-mini"), studies="fill-in,jobs", design="quick")
    result = run_suite(plan, progress=False)   # result.record: the suite's SuiteRecord
"""
