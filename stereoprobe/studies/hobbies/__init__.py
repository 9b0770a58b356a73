"""The hobbies study (Sterlie et al. 2024, seed 001 sections 4.2, 5.2 and 6): what hobbies
does a model give a high-school student called by a female or a male name?

The folder: ``data/`` (``names.csv``: 107 female and 107 male US first names, the rule in
``names.py``; ``labels.csv``: the six hobby labels as word lists), ``text.py`` (tokens,
content words), ``labels.py`` (a text's label scores and the words that decided them),
``stats.py`` (word counts per gender, label means over names, NMI(gender, top label)),
``w2v.py`` (one Word2Vec model over compared runs, the she-he projection, Mann-Whitney U
and Cohen's d).
"""
