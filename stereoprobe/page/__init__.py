"""The page shell every study's report shares: colours (``palette.py``) and how a number
is shown (``numbers.py``)."""
