"""What every DVC stage script shares: argument parsing, logging and error reporting.

A stage that fails on bad input or parameters prints one line naming the file,
line or key to fix and exits with status 1; an interrupted stage exits with 130.
Its declared outputs are written atomically, so neither leaves a partial file. A stage that
finishes logs its wall time and adds it to its report (``--figures``) as ``stage_wall_seconds``,
so a run's time per stage is in ``reports/``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from scicon.errors import SciconError
from scicon.io import write_json
from scicon.params import read_params_file, validate_key
from scicon.threads import apply_thread_budget

log = logging.getLogger("scicon")


def stage_parser(description: str | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--params", default="params.yaml", help="parameters file (default: %(default)s)")
    return parser


def add_metrics_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``--metrics`` (the stage's headline figures, a DVC metric) and ``--figures`` (all of them)."""
    parser.add_argument("--metrics", required=True, help="output JSON: headline metrics (scicon.headline)")
    parser.add_argument("--figures", required=True, help="output JSON: every figure, breakdowns and timings")
    return parser


def add_training_curve_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``--loss-plot`` and ``--dev-plot``: where a training stage writes its curves."""
    parser.add_argument("--loss-plot", required=True, help="output CSV: training loss per logged step")
    parser.add_argument("--dev-plot", required=True, help="output CSV: dev ROC-AUC per evaluation")
    return parser


def setup_logging(level: int = logging.INFO) -> None:
    logging.basicConfig(
        level=level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        datefmt="%H:%M:%S",
        stream=sys.stderr,
    )


def threads_setting(params_file: str | None) -> int | None:
    """The top-level ``threads`` of the stage's params file (None: absent, or no file)."""
    if params_file is None or not Path(params_file).is_file():
        return None
    data = read_params_file(params_file)
    return validate_key("threads", data["threads"], params_file) if "threads" in data else None


def run_stage(
    main: Callable[[argparse.Namespace], None],
    parser: argparse.ArgumentParser,
    argv: Sequence[str] | None = None,
) -> None:
    setup_logging()
    args = parser.parse_args(argv)
    try:
        apply_thread_budget(threads_setting(getattr(args, "params", None)))
        started = time.perf_counter()
        main(args)
        record_wall_time(getattr(args, "figures", None), time.perf_counter() - started)
    except SciconError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    except KeyboardInterrupt:
        print("interrupted: outputs were not replaced", file=sys.stderr)
        raise SystemExit(130) from None


def record_wall_time(report: str | None, seconds: float) -> None:
    """Log the stage's wall time and add it to its report, when it wrote one."""
    log.info("finished in %.1f s", seconds)
    if report is None or not Path(report).is_file():
        return

    try:
        figures = json.loads(Path(report).read_text(encoding="utf-8"))
    except ValueError:  # not one JSON document (a JSON Lines report): the log has the time
        return
    if isinstance(figures, dict):
        write_json(report, {**figures, "stage_wall_seconds": round(seconds, 1)})
