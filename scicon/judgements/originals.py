"""The sentence each judged edit was made from, for rounds drawn before the key recorded it.

A judge that reads edits (docs/entailment.md) is shown which words of sentence2 changed, so its
training rows need the sentence the edit was made from. Rounds drawn since record it in their key
(``original``); for earlier rounds it is the pair's sentence2 as extracted, which the pair id names
(``<pmid>-<kind>-<index1>-<index2>``: sentence ``index2`` of the abstract). ``python -m
scicon.judgements originals --abstracts ABSTRACTS`` fills it in every round key that lacks it, after
checking that the abstract's sentence ``index1`` is the item's sentence1 (the same abstracts as the
round was drawn from), and writes each key again atomically; ``read`` then carries it into the
labelled set.
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from scicon.annotation.blinding import KEY_FILE
from scicon.errors import InputFormatError, InputNotFoundError
from scicon.io import read_jsonl, write_jsonl
from scicon.pairing.pairs import pair_indices
from scicon.records.corpus import Abstract
from scicon.records.judgements import RoundItem

log = logging.getLogger(__name__)

# the sources whose sentence2 is an edit of the pair's own sentence2
EDIT_SOURCES = ("rule_cross", "control_cross", "evonli_accepted", "evonli_near_miss")


def add_originals_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--abstracts", required=True, help="the ingested abstracts the rounds were drawn from"
    )
    parser.add_argument(
        "--rounds", default="judgements/rounds", help="folder of rounds (default: %(default)s)"
    )


def _sentence(abstract: Abstract, index: int, key: Path, line: int) -> str:
    if not 0 <= index < len(abstract.sentences):
        raise InputFormatError(str(key), f"PMID {abstract.pmid} has no sentence {index}", line)
    return abstract.sentences[index].text


def with_originals(
    items: list[RoundItem], abstracts: dict[str, Abstract], key: Path
) -> tuple[list[RoundItem], int]:
    """``items`` with the original of every edit that lacks one; how many were filled in."""
    filled, out = 0, []
    for line, item in enumerate(items, start=1):
        if item.original is not None or item.source not in EDIT_SOURCES:
            out.append(item)
            continue
        abstract = abstracts.get(item.pmid)
        if abstract is None:
            raise InputFormatError(str(key), f"PMID {item.pmid} is not among the abstracts given", line)
        index1, index2 = pair_indices(item.pair_id)
        if _sentence(abstract, index1, key, line) != item.sentence1:
            raise InputFormatError(
                str(key),
                f"sentence {index1} of PMID {item.pmid} is not the item's sentence1: other abstracts?",
                line,
            )
        out.append(item.model_copy(update={"original": _sentence(abstract, index2, key, line)}))
        filled += 1
    return out, filled


def run_originals(args: argparse.Namespace) -> None:
    abstracts = {abstract.pmid: abstract for abstract in read_jsonl(Path(args.abstracts), Abstract)}
    keys = sorted(Path(args.rounds).glob(f"*/{KEY_FILE}"))
    if not keys:
        raise InputNotFoundError(f"{args.rounds}: no round key ({KEY_FILE})")
    for key in keys:
        items = list(read_jsonl(key, RoundItem))
        updated, filled = with_originals(items, abstracts, key)
        if filled:
            write_jsonl(key, updated)
        log.info("%s: the original of %d edits filled in (%d items)", key, filled, len(items))
