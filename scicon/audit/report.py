"""The audit as a markdown page: the figures in the paper's words, the tables, the disagreements."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from scicon.audit.figures import ItemVotes, disagreements, summary
from scicon.audit.params import AuditParams
from scicon.audit.sample import LABEL_NAMES


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f} %"


def _ci(figures: Mapping, name: str) -> str:
    low, high = figures.get(f"{name}_ci_low"), figures.get(f"{name}_ci_high")
    return "" if low is None or high is None else f" [{100 * low:.1f}, {100 * high:.1f}]"


def _restriction(only: Mapping[str, Sequence[str]]) -> str:
    if not only:
        return ""
    return " with " + " and ".join(f"{field} in ({', '.join(values)})" for field, values in only.items())


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_cell(cell) for cell in row) + " |" for row in rows]
    return lines


def _summary_rows(groups: Mapping[str, Mapping]) -> list[list[object]]:
    rows = []
    for name, figures in groups.items():
        reliability = figures["reliability"]
        rows.append(
            [
                name,
                figures["items"],
                figures["judgments"],
                _pct(figures["agreement"]) + _ci(figures, "agreement"),
                _pct(figures["majority_accuracy"]) + _ci(figures, "majority_accuracy"),
                _num(reliability["fleiss_kappa"]),
                _num(reliability["gwet_ac1"]),
                _pct(reliability["unanimity"]),
            ]
        )
    return rows


SUMMARY_HEADER = (
    "",
    "items",
    "judgments",
    "agreement",
    "majority accuracy",
    "Fleiss' κ",
    "Gwet's AC1",
    "unanimity",
)


def _reliability_line(reliability: Mapping) -> str:
    if reliability["raters_per_item"] < 2:
        return "- Inter-rater reliability: needs two or more annotators (one so far)."
    return (
        f"- Inter-rater reliability on the {reliability['items']} items all {reliability['raters_per_item']} "
        f"annotators judged: Fleiss' κ **{_num(reliability['fleiss_kappa'])}**, Gwet's AC1 "
        f"**{_num(reliability['gwet_ac1'])}**, unanimity **{_pct(reliability['unanimity'])}**."
    )


def render_report(
    metrics: Mapping, votes: Sequence[ItemVotes], manifest: Mapping, params: AuditParams
) -> str:
    level = f"{100 * params.confidence_level:g} %"
    sample = metrics["sample"]
    lines = ["# SciCon expert audit", ""]
    lines += [
        f"Sample: {sample['items']} items (requested {sample['requested']}) from {sample['build_rows']} rows "
        f"of the build{_restriction(manifest.get('only', {}))}, stratified by "
        f"{', '.join(manifest.get('strata_fields', []))} (seed {manifest.get('seed')}).",
        "",
    ]
    annotations = metrics["annotations"]
    if metrics["status"] != "scored":
        lines += [
            f"**No judgments to score yet** ({annotations['files']} annotation files, "
            f"{annotations['answers']} answers, {annotations['stale']} stale). Put the annotators' files "
            "in the annotations folder (see its README.md) and run `dvc repro audit_score`.",
            "",
        ]
    else:
        reliability = metrics["reliability"]
        precision = metrics["precision"]
        lines += [
            f"{metrics['items_judged']} items judged by {len(metrics['annotators'])} annotator(s): "
            f"{metrics['judgments']} judgments, {metrics['unsure']} unsure (left out; counted as "
            f"disagreement the agreement is {_pct(metrics['agreement_unsure_as_disagreement'])}), "
            f"{annotations['stale']} stale answers left out.",
            "",
            f"- Agreement with the algorithmic label: **{_pct(metrics['agreement'])}** "
            f"({level} CI{_ci(metrics, 'agreement')}, bootstrap over items).",
            f"- Majority-vote accuracy: **{_pct(metrics['majority_accuracy'])}** "
            f"({level} CI{_ci(metrics, 'majority_accuracy')}, Wilson) on {metrics['majority_items']} items "
            f"with a majority ({metrics['majority_ties']} ties).",
            "- Majority-vote precision per algorithmic label: "
            + "; ".join(
                f"{name.replace('_', '-')} {_pct(p['precision'])}{_ci(p, 'precision')} (n={p['items']})"
                for name, p in precision.items()
            )
            + ".",
            _reliability_line(reliability),
            f"- Estimate for the whole build (items weighted by stratum size): agreement "
            f"{_pct(metrics['build_estimate']['agreement'])}{_ci(metrics['build_estimate'], 'agreement')}, "
            f"majority accuracy {_pct(metrics['build_estimate']['majority_accuracy'])}"
            f"{_ci(metrics['build_estimate'], 'majority_accuracy')}.",
            "",
            "## Annotators",
            "",
        ]
        lines += _table(
            ("annotator", "answers", "unsure", "missing", "stale", "agreement (Wilson CI)"),
            [
                [
                    name,
                    a["answers"],
                    a["unsure"],
                    a["missing"],
                    a["stale"],
                    _pct(a["agreement"]) + _ci(a, "agreement"),
                ]
                for name, a in metrics["annotators"].items()
            ],
        )
        for field in params.strata:
            lines += ["", f"## By {field.replace('_', ' ')}", ""]
            lines += _table(SUMMARY_HEADER, _summary_rows(metrics[f"by_{field}"]))
        panel = sorted({name for v in votes for name in v.labels})
        groups: dict[str, list[ItemVotes]] = defaultdict(list)
        for v in votes:
            groups[v.item.stratum].append(v)
        lines += ["", f"## By stratum ({'/'.join(params.strata)})", ""]
        lines += _table(
            SUMMARY_HEADER,
            _summary_rows({name: summary(group, panel, params) for name, group in sorted(groups.items())}),
        )
        rows = disagreements(votes)
        lines += [
            "",
            f"## Items where the majority disagrees with the algorithm ({metrics['disagreements']})",
            "",
        ]
        if rows:
            lines += _table(
                (
                    "item",
                    "generator / operator / type",
                    "label",
                    "majority",
                    "votes C / N / ?",
                    "sentence 1",
                    "sentence 2",
                    "comments",
                ),
                [
                    [
                        row["item_id"],
                        f"{row['generator']} / {row['operator']} / {row['mutation_type']}",
                        LABEL_NAMES[row["label"]],
                        "tie" if row["majority"] is None else LABEL_NAMES[row["majority"]],
                        " / ".join(str(n) for n in row["votes"].values()),
                        row["sentence1"],
                        row["sentence2"],
                        "; ".join(f"{who}: {text}" for who, text in row["comments"].items()),
                    ]
                    for row in rows
                ],
            )
            lines += ["", "Ties (no majority) are listed after the disagreements."]
        else:
            lines += ["None."]
    lines += ["", "## Sample composition", ""]
    lines += _table(
        ("stratum", "rows in the build", "sampled", "weight"),
        [
            [name, s["population"], s["sampled"], f"{s['weight']:.2f}"]
            for name, s in manifest.get("strata", {}).items()
        ],
    )
    return "\n".join(lines) + "\n"
