"""One rule for "passes a threshold": ``scicon.params.meets_threshold``, and no comparison
against a threshold written anywhere else in scicon/ or stages/ (AST, nothing imported).

A threshold is named as one: the EvoNLI thresholds ``sim``, ``claim`` and ``target``, a name
containing ``threshold``, or a ``min_*`` setting. A ``min_*`` compared with a count (``len(...)``)
is a count, not a probability, and is left alone."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

from scicon.codedeps.closure import ROOT
from scicon.params import meets_threshold

RULE_FILE = Path("scicon/params.py")
RULE = "meets_threshold"
ORDERINGS = (ast.GtE, ast.Gt, ast.LtE, ast.Lt)
EVONLI_THRESHOLDS = frozenset({"sim", "claim", "target"})


def _identifier(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _is_threshold(name: str | None) -> bool:
    return name is not None and (name in EVONLI_THRESHOLDS or "threshold" in name or name.startswith("min_"))


def _is_count(node: ast.expr) -> bool:
    if isinstance(node, ast.BinOp):
        return _is_count(node.left) and _is_count(node.right)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"


def _inline_threshold_comparisons(path: Path, tree: ast.Module) -> list[tuple[int, str]]:
    inside_rule: set[int] = set()
    if path == RULE_FILE:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == RULE:
                inside_rule |= {id(inner) for inner in ast.walk(node)}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare) or id(node) in inside_rule:
            continue
        if not any(isinstance(op, ORDERINGS) for op in node.ops):
            continue
        operands = [node.left, *node.comparators]
        names = [_identifier(operand) for operand in operands]
        if not any(_is_threshold(name) for name in names):
            continue
        if any(_is_count(operand) for operand in operands):
            continue
        found.append((node.lineno, ast.unparse(node)))
    return found


def inline_threshold_comparisons(root: Path = ROOT) -> list[str]:
    """``file:line: comparison`` for each ordering comparison against a threshold outside the rule."""
    found = []
    for path in sorted([*(root / "scicon").rglob("*.py"), *(root / "stages").rglob("*.py")]):
        relative = path.relative_to(root)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        found += [
            f"{relative}:{line}: {text}" for line, text in _inline_threshold_comparisons(relative, tree)
        ]
    return found


def test_no_threshold_is_compared_outside_the_one_rule():
    found = inline_threshold_comparisons()
    assert not found, "compare with scicon.params.meets_threshold instead:\n" + "\n".join(found)


def test_a_planted_inline_comparison_is_found_and_counts_and_the_rule_are_not(tmp_path):
    (tmp_path / "scicon" / "find").mkdir(parents=True)
    (tmp_path / "stages").mkdir()
    (tmp_path / "scicon" / "params.py").write_text(
        "def meets_threshold(score, threshold):\n    return score >= threshold\n"
    )
    (tmp_path / "scicon" / "find" / "run.py").write_text(
        "from scicon.params import meets_threshold\n"
        "def keep(pairs, params, words, min_words):\n"
        "    kept = [p for p in pairs if meets_threshold(p.score, params.threshold)]\n"
        "    if len(words) < min_words:\n"  # a count
        "        return []\n"
        "    return [p for p in kept if p.same_topic >= params.min_same_topic]\n"
    )
    (tmp_path / "stages" / "evolve.py").write_text(
        "def accepted(confidence, target):\n    return target <= confidence\n"
    )
    assert inline_threshold_comparisons(tmp_path) == [
        "scicon/find/run.py:6: p.same_topic >= params.min_same_topic",
        "stages/evolve.py:2: target <= confidence",
    ]


def test_a_score_equal_to_its_threshold_passes():
    """Algorithm 1 keeps SIMSCORE >= T_sim and stops at confidence >= T_conf."""
    assert meets_threshold(0.5, 0.5)
    assert not meets_threshold(0.4999, 0.5)
    assert meets_threshold(np.array([0.3, 0.5, 0.7]), 0.5).tolist() == [False, True, True]
