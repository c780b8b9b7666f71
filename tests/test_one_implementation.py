"""What reading people's answers is made of is written once (scicon.annotation and three
foundation modules): a second implementation of any of it, planted in scicon/, stages/ or perf/,
fails here with its file and line.

Each rule names the one module allowed to hold the idiom and how the idiom looks in the syntax
tree, so that a copy under another name is found too; the planted copies at the end prove that
every rule can fail.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from scicon.codedeps.closure import ROOT

PROJECT = ("scicon", "stages", "perf")


def _calls(node: ast.AST, name: str) -> bool:
    """``node`` is a call of ``name`` (``name(...)`` or ``anything.name(...)``)."""
    if not isinstance(node, ast.Call):
        return False
    function = node.func
    return (isinstance(function, ast.Name) and function.id == name) or (
        isinstance(function, ast.Attribute) and function.attr == name
    )


def _uses_name(node: ast.AST, name: str) -> bool:
    """``node`` imports, reads or calls ``name``."""
    if isinstance(node, ast.ImportFrom | ast.Import):
        return any(alias.name.split(".")[-1] == name for alias in node.names)
    return (isinstance(node, ast.Name) and node.id == name) or (
        isinstance(node, ast.Attribute) and node.attr == name
    )


def _quantile_pair(node: ast.AST) -> bool:
    """``np.quantile(values, [low, high])``: two tails at once make a percentile interval."""
    return (
        (_calls(node, "quantile") or _calls(node, "percentile"))
        and len(node.args) >= 2
        and isinstance(node.args[1], ast.List | ast.Tuple)
        and len(node.args[1].elts) == 2
    )


def _string(node: ast.AST, *values: str) -> bool:
    return isinstance(node, ast.Constant) and node.value in values


def _sliced_digest_with_prefix(node: ast.AST) -> bool:
    """``f"x-{sha256(...).hexdigest()[:12]}"`` or ``"x-" + ...hexdigest()[:12]``: a blinded id."""

    def sliced_digest(part: ast.AST) -> bool:
        part = part.value if isinstance(part, ast.FormattedValue) else part
        return isinstance(part, ast.Subscript) and _calls(part.value, "hexdigest")

    if isinstance(node, ast.JoinedStr):
        return any(sliced_digest(part) for part in node.values)
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Add)
        and (sliced_digest(node.left) or sliced_digest(node.right))
    )


def _third(node: ast.AST) -> bool:
    """``wanted // 3``: the share of a batch's controls that are contradictions."""
    return (
        isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv) and _string_or_number(node.right, 3)
    )


def _string_or_number(node: ast.AST, value: object) -> bool:
    return isinstance(node, ast.Constant) and node.value == value


def _compares_contradiction(node: ast.AST) -> bool:
    return isinstance(node, ast.Compare) and any(
        _string(side, "contradiction") or (isinstance(side, ast.Name) and side.id == "CONTRADICTION")
        for side in (node.left, *node.comparators)
    )


def _contradiction_agreement(node: ast.AST) -> bool:
    """``(given == "contradiction") == (gold == "contradiction")``: control accuracy on
    contradiction vs not."""
    return (
        isinstance(node, ast.Compare)
        and _compares_contradiction(node.left)
        and any(_compares_contradiction(side) for side in node.comparators)
    )


def _collapses_spacing(node: ast.AST) -> bool:
    """``" ".join(text.split())`` or ``re.sub(r"\\s+", " ", text)``."""
    joins_words = _calls(node, "join") and any(_calls(part, "split") for part in ast.walk(node))
    subs_spacing = _calls(node, "sub") and any(
        _string(part, r"\s+", r"\s*", r"\s") for part in ast.walk(node)
    )
    return joins_words or subs_spacing


def _folds_case(node: ast.AST) -> bool:
    return _calls(node, "lower") or _calls(node, "casefold")


def _lower_and_collapse(node: ast.AST) -> bool:
    """Case folded and spacing collapsed in one expression, in either order: "the same sentence"."""
    if _collapses_spacing(node):
        return any(_folds_case(part) for part in ast.walk(node))
    if _folds_case(node) and isinstance(node.func, ast.Attribute):
        return any(_collapses_spacing(part) for part in ast.walk(node.func.value))
    return False


def _unicode_normalised(node: ast.AST) -> bool:
    return _calls(node, "normalize") and bool(node.args) and _string(node.args[0], "NFC", "NFKC")


def _remainder(node: ast.AST) -> bool:
    """``x - floor(x)`` (or ``int(x)``): a fraction left by rounding down."""
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Sub)
        and (_calls(node.right, "floor") or _calls(node.right, "int"))
        and bool(node.right.args)
        and ast.dump(node.right.args[0]) == ast.dump(node.left)
    )


def _ranked_by_remainder(node: ast.AST) -> bool:
    """``sorted(parts, key=lambda p: -(share[p] - floor(share[p])))``: largest remainders first."""
    return _calls(node, "sorted") and any(
        keyword.arg == "key" and any(_remainder(part) for part in ast.walk(keyword.value))
        for keyword in node.keywords
    )


def _hands_out_the_rest(node: ast.AST) -> bool:
    """``ranked[: total - sum(counts)]``: the remainder of a rounding handed out in order."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice)):
        return False
    upper = node.slice.upper
    return isinstance(upper, ast.BinOp) and isinstance(upper.op, ast.Sub) and _calls(upper.right, "sum")


def _defines(name_part: str) -> Callable[[ast.AST], bool]:
    def defines(node: ast.AST) -> bool:
        return isinstance(node, ast.FunctionDef) and name_part in node.name

    return defines


def _level_constant(node: ast.AST) -> bool:
    """``LEVEL = 0.95``: a confidence level written in code instead of read from params."""
    if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Constant):
        return False
    named = any(
        isinstance(target, ast.Name) and ("LEVEL" in target.id or "CONFIDENCE" in target.id)
        for target in node.targets
    )
    return named and isinstance(node.value.value, float)


def _alpha_keyword(node: ast.AST) -> bool:
    """``alpha=0.05`` passed to a statistics call."""
    return isinstance(node, ast.Call) and any(
        keyword.arg == "alpha" and isinstance(keyword.value, ast.Constant) for keyword in node.keywords
    )


@dataclass(frozen=True)
class Rule:
    what: str
    home: tuple[str, ...]  # the module(s) the one implementation lives in
    found: Callable[[ast.AST], bool]


RULES = (
    Rule("a Wilson interval (statsmodels' proportion_confint)", ("scicon/annotation/intervals.py",),
         lambda node: _uses_name(node, "proportion_confint")),
    Rule("a share with its interval (wilson_interval wrapped in a report entry)",
         ("scicon/annotation/intervals.py",), lambda node: _calls(node, "wilson_interval")),
    Rule("a percentile bootstrap interval", ("scicon/annotation/intervals.py",), _quantile_pair),
    Rule("a Label Studio export parse", ("scicon/annotation/labelstudio.py",),
         lambda node: _string(node, "was_cancelled", "from_name")),
    Rule("a blinded id", ("scicon/annotation/blinding.py",), _sliced_digest_with_prefix),
    Rule("the controls per batch", ("scicon/annotation/controls.py",), _third),
    Rule("control accuracy on contradiction vs not", ("scicon/annotation/controls.py",),
         _contradiction_agreement),
    Rule("the same sentence (case and spacing folded)", ("scicon/textdiff.py",), _lower_and_collapse),
    Rule("the same sentence (one Unicode form)", ("scicon/textdiff.py",), _unicode_normalised),
    Rule("content words", ("scicon/lexical.py",), _defines("content_words")),
    Rule("a Jaccard overlap", ("scicon/lexical.py",), _defines("jaccard")),
    Rule("an apportionment (largest remainders)", ("scicon/sampling.py",), _ranked_by_remainder),
    Rule("an apportionment (the rest handed out)", ("scicon/sampling.py",), _hands_out_the_rest),
    Rule("a confidence level written in code", (), _level_constant),
    Rule("a significance level written in code", (), _alpha_keyword),
)  # fmt: skip


def project_files(root: Path) -> list[Path]:
    return sorted(
        path for package in PROJECT if (root / package).is_dir() for path in (root / package).rglob("*.py")
    )


def second_implementations(root: Path = ROOT) -> Iterator[str]:
    for path in project_files(root):
        name = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=name)
        for node in ast.walk(tree):
            for rule in RULES:
                if name not in rule.home and rule.found(node):
                    home = ", ".join(rule.home) or "params.yaml"
                    yield f"{name}:{getattr(node, 'lineno', '?')}: {rule.what} (its one home: {home})"


def test_each_is_written_once():
    found = sorted(set(second_implementations()))
    assert not found, "call the one implementation instead:\n" + "\n".join(found)


PLANTED = {
    "wilson": "from statsmodels.stats.proportion import proportion_confint\n",
    "share": "def precision(h, n):\n    return {'interval': wilson_interval(h, n, 0.9)}\n",
    "bootstrap": "import numpy as np\nlow, high = np.quantile(values, [0.025, 0.975])\n",
    "labelstudio": "def reads(annotation):\n    return not annotation.get('was_cancelled')\n",
    "blinded": "import hashlib\nitem = 'r-' + hashlib.sha256(key).hexdigest()[:10]\n",
    "controls": "contradictions = max(1, count // 3)\n",
    "accuracy": "right = sum((a == 'contradiction') == (g == 'contradiction') for a, g in pairs)\n",
    "sentence": "def key(text):\n    return ' '.join(text.lower().split())\n",
    "spacing": "import re\nkey = re.sub(r'\\s+', ' ', text).strip().lower()\n",
    "unicode": "import unicodedata\nkey = unicodedata.normalize('NFC', text)\n",
    "content": "def my_content_words(text):\n    return set(text.split())\n",
    "jaccard": "def jaccard(a, b):\n    return 0.0\n",
    "remainder": "import math\norder = sorted(parts, key=lambda p: -(share[p] - math.floor(share[p])))\n",
    "rest": "for i in by_share[: count - sum(counts)]:\n    pass\n",
    "level": "LEVEL = 0.95\n",
    "alpha": "interval = confint(3, 9, alpha=0.05)\n",
}


@pytest.mark.parametrize("copy", sorted(PLANTED))
def test_a_planted_second_implementation_is_found(tmp_path, copy):
    (tmp_path / "scicon" / "find").mkdir(parents=True)
    (tmp_path / "scicon" / "find" / "copy.py").write_text(PLANTED[copy], encoding="utf-8")
    found = list(second_implementations(tmp_path))
    assert len(found) >= 1 and all(line.startswith("scicon/find/copy.py:") for line in found), found
