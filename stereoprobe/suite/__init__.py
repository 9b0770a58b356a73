"""`stereoprobe suite`: every study of one model in one folder (docs/suite.md).

``record.py``: ``suite.json``, the suite's typed record (which model, which design, each
study's run folder and state), its one reader and writer.
"""
