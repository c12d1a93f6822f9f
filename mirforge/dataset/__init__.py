"""The dataset folder: its layout, its writer and manifest, its upload, and the one reader every command uses.

The writer modules (``writer``, ``manifest``, ``mir``, ``upload``) are imported where they are needed; the reader is
here. This package builds on ``mirforge.instance`` and ``mirforge.errors`` only: the runner imports it, never the
other way.
"""

from mirforge.dataset.reader import Dataset, Entry, ShardFile

__all__ = ["Dataset", "Entry", "ShardFile"]
