"""The page shell every study's report shares (``shell.py``), the report folder written all
or nothing (``folder.py``), figures (``figures.py``), colours (``palette.py``) and how a
number is shown (``numbers.py``)."""
