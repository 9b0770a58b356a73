"""Generation studies' core: ask a model for K texts per prompt, classify each text, test
whether the class depends on the prompt's group (Sterlie et al.'s independence, seed 001).

A generation study (``stereoprobe/studies/<name>/``) is its data and a classifier on top of
``study.GenerationStudy`` (docs/design.md, "Generation studies"). The modules:

- ``records.py``: ``GenProbe`` (a prompt: group, variant, chat messages, completion form,
  the group's known facts) and ``GenRecord`` (one generated text: text, finish reason,
  refusal, usage, the class and its evidence);
- ``backends.py``: K samples on every path (chat endpoints with ``n`` per request where
  allowed; a model file's chat template; the embedded base model on a completion form);
- ``ask.py``: one sample asked; empty, truncated and refused texts counted, never
  classified (``label_fields``); ``reclassify.py``: ``stereoprobe reparse`` for them;
- ``gender.py``: the text -> male / female / neutral / mixed classifier (names, pronouns,
  gendered nouns and titles) with its evidence;
- ``stats.py``: shares with Jeffreys intervals over samples, shares over clusters, NMI with
  its permutation null and interval, Spearman;
- ``metrics.py``: a study's summary rows and per-group shares as release-gate values;
- ``study.py``: the ``GenerationStudy`` base (probes, collect, --dry-run, reparse).

The name -> gender resource with its titles is ``stereoprobe/names.py`` (every study's).
"""
