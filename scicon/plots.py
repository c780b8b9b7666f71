"""Plot data for `dvc plots`: small CSV files with one header row, written atomically."""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence

from scicon.io import atomic_open


def write_csv(path: str | os.PathLike, rows: Sequence[dict], fields: Sequence[str]) -> None:
    with atomic_open(path) as handle:
        writer = csv.DictWriter(handle, fieldnames=list(fields), extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
