"""The finder's page: ranked pairs side by side with their evidence, a stance meter per question,
filters.

One self-contained HTML file (no network request: styles and the filter script are inline),
so it opens offline and can be mailed. The pairs are rendered as HTML, not built by the
script, so the page reads even with scripts off; the script only filters. A script error is
written into the page (``#script-errors``) and the script marks ``#script-status`` ready when
it has run, which is what the browser test reads.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence

from scicon.records.find import Claim, FoundPair, Stance, StanceGroupRecord

PUBMED = "https://pubmed.ncbi.nlm.nih.gov/{}/"
PUBMED_CENTRAL = "https://www.ncbi.nlm.nih.gov/pmc/articles/{}/"  # articles named by PMCID (PMC101395)
STANCE_ORDER = ("yes", "no", "neither")
LABELS = {"yes": "Yes", "no": "No", "neither": "Neither"}
DISAGREEING_SHOWN = 3  # per question: the pairs across its split with the highest scores

STYLE = """
body{font-family:system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:1em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
.figures span{display:inline-block;margin-right:1.2em}
.filters{position:sticky;top:0;background:#f4f4f4;padding:.5em;border-radius:4px;z-index:1}
.filters label{margin-right:1.2em}
.pair{border:1px solid #ccc;border-radius:4px;margin:.8em 0;padding:.6em}
.pair.flagged{border-left:6px solid #c0392b}.pair.not-comparable{opacity:.75}
.meta{font-size:.85em;color:#555}.sides{display:flex;gap:1em}.side{flex:1}
.claim{font-size:1.02em;margin:.3em 0;padding:.4em;background:#fafafa;border-left:3px solid #888}
.evidence{font-size:.9em;color:#333;margin:.2em 0 0 .6em}
.review{font-weight:bold}.reason{color:#8e44ad}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.25em .5em;vertical-align:top}
.stance-yes h4{color:#1e7b34}.stance-no h4{color:#c0392b}.stance-neither h4{color:#777}
.question{border-top:1px solid #ccc;padding:.3em 0}.members{padding-left:1.2em}.members li{margin:.3em 0}
.question summary{cursor:pointer}
.meter{display:flex;height:1.4em;border-radius:4px;overflow:hidden;margin:.3em 0 .3em 1.2em;max-width:600px}
.meter span{color:#fff;text-align:center;font-size:.85em;line-height:1.4em}
.meter-yes{background:#1e7b34}.meter-no{background:#c0392b}.meter-neither{background:#aaa}
#script-errors{color:#c0392b}
"""

SCRIPT = """
window.onerror=function(message){document.getElementById('script-errors').textContent+=message+' ';};
(function(){
  var score=document.getElementById('min-score'),shown=document.getElementById('min-score-value');
  var question=document.getElementById('question'),flagged=document.getElementById('flagged-only');
  var comparable=document.getElementById('comparable-only'),count=document.getElementById('shown-count');
  function apply(){
    var min=parseFloat(score.value),n=0;shown.textContent=min.toFixed(2);
    document.querySelectorAll('.pair').forEach(function(pair){
      var s=parseFloat(pair.dataset.score);
      var visible=(s<0?min===0:s>=min)
        &&(question.value===''||pair.dataset.question===question.value)
        &&(!flagged.checked||pair.dataset.flagged==='1')
        &&(!comparable.checked||pair.dataset.comparable==='1');
      pair.hidden=!visible;if(visible){n+=1;}
    });
    count.textContent=n;
  }
  [score,question,flagged,comparable].forEach(function(el){el.addEventListener('input',apply);el.addEventListener('change',apply);});
  apply();
  document.getElementById('script-status').textContent='ready';
})();
"""


def _text(value: object) -> str:
    return html.escape(str(value), quote=True)


def _study(claim: Claim) -> str:
    if claim.pmid and claim.pmid.isdigit():
        return f'<a href="{PUBMED.format(claim.pmid)}">PMID {_text(claim.pmid)}</a>'
    if claim.pmid and claim.pmid.startswith("PMC") and claim.pmid[3:].isdigit():
        return f'<a href="{PUBMED_CENTRAL.format(claim.pmid)}">{_text(claim.pmid)}</a>'
    return _text(claim.pmid or claim.group)


def _side(claim: Claim) -> str:
    where = [_study(claim)]
    if claim.role:
        where.append(_text(claim.role.lower()))
    if claim.position is not None:
        where.append(f"sentence {claim.position + 1}")
    evidence = ""
    if claim.evidence:
        at = f" (sentence {claim.evidence_position + 1})" if claim.evidence_position is not None else ""
        evidence = f'<div class="evidence">Evidence{at}: {_text(claim.evidence)}</div>'
    return (
        f'<div class="side"><div class="meta">{" · ".join(where)}</div>'
        f'<blockquote class="claim">{_text(claim.text)}</blockquote>{evidence}</div>'
    )


def _pair(pair: FoundPair, review: Mapping | None) -> str:
    classes = (
        ["pair"] + (["flagged"] if pair.flagged else []) + ([] if pair.comparable else ["not-comparable"])
    )
    facts = [
        f"#{pair.rank}",
        (
            f"P(contradiction) {pair.score:.3f} (A→B {pair.score_ab:.3f}, B→A {pair.score_ba:.3f})"
            if pair.score is not None
            else "not scored"
        ),
        (
            f"verifier P(contradiction) {pair.verifier.score:.3f} "
            f"(A→B {pair.verifier.score_ab:.3f}, B→A {pair.verifier.score_ba:.3f})"
            if pair.verifier is not None
            else ""
        ),
        f"P(same topic) {pair.same_topic:.3f}",
        f"question {_text(pair.question)}" if pair.question else "",
        "shared: " + _text(", ".join(pair.shared_terms)) if pair.shared_terms else "nothing shared",
    ]
    comparability = (
        "comparable"
        if pair.comparable
        else '<span class="reason">not comparable: '
        + _text("; ".join(str(reason) for reason in pair.not_comparable))
        + "</span>"
    )
    reviewed = ""
    if review:
        label, readers = _text(review["label"]), _text(review["readers"])
        reviewed = f'<div class="review">Reviewed: {label} ({readers} reader(s))</div>'
    score = pair.score if pair.score is not None else -1.0  # unscored: shown only with no minimum
    return (
        f'<article class="{" ".join(classes)}" data-score="{score:.6f}" '
        f'data-question="{_text(pair.question)}" '
        f'data-flagged="{int(pair.flagged)}" data-comparable="{int(pair.comparable)}" id="pair-{pair.rank}">'
        f'<div class="meta">{" · ".join(fact for fact in facts if fact)} · {comparability}</div>'
        f'{reviewed}<div class="sides">{_side(pair.a)}{_side(pair.b)}</div></article>'
    )


def _member(stance: Stance) -> str:
    evidence = (
        f'<div class="evidence">Evidence: {_text(stance.claim.evidence)}</div>'
        if stance.claim.evidence
        else ""
    )
    return (
        f'<li><span class="meta">{_study(stance.claim)} · confidence {stance.confidence:.2f}</span>'
        f"<div>{_text(stance.claim.text)}</div>{evidence}</li>"
    )


def _meter(counts: Mapping[str, int]) -> str:
    """A bar of the claims on each side and those that say neither, each part as wide as its share."""
    total = sum(counts.values()) or 1
    parts = "".join(
        f'<span class="meter-{stance}" style="width:{100 * counts[stance] / total:.1f}%" '
        f'title="{LABELS[stance]}: {counts[stance]}">{counts[stance] or ""}</span>'
        for stance in STANCE_ORDER
        if counts.get(stance)
    )
    return f'<span class="meter">{parts}</span>'


def _pair_list(pair_ids: Sequence[str], by_id: Mapping[str, FoundPair], limit: int) -> str:
    rows = []
    for pair_id in pair_ids[:limit]:
        pair = by_id.get(pair_id)
        if pair is not None:
            rank = f'<a href="#pair-{pair.rank}">#{pair.rank}</a>'
            texts = f"«{_text(pair.a.text)}» vs «{_text(pair.b.text)}»"
            rows.append(f"<li>{rank} P(contradiction) {pair.score:.3f}: {texts}</li>")
    return "<ul>" + "".join(rows) + "</ul>" if rows else ""


def _group(group: StanceGroupRecord, by_id: Mapping[str, FoundPair], opened: bool) -> str:
    """One question: its meter in the summary line; opened, each side's claims with their evidence
    and the pairs that disagree most."""
    columns = "".join(
        f'<div class="side stance-{stance}"><h4>{LABELS[stance]} ({group.counts[stance]})</h4>'
        f'<ul class="members">{"".join(_member(m) for m in group.members if m.stance == stance)}</ul></div>'
        for stance in STANCE_ORDER
    )
    asked = f"<p><b>Question:</b> {_text(group.asked)}</p>" if group.asked else ""
    disagree = _pair_list(group.disagreeing, by_id, DISAGREEING_SHOWN)
    overruled = _pair_list(group.overruled, by_id, DISAGREEING_SHOWN)
    return (
        f'<details class="question" id="question-{_text(group.question)}"{" open" if opened else ""}>'
        f"<summary><b>{_text(group.question)}</b> {_text(group.asked or group.reference.text)}"
        f"{_meter(group.counts)}</summary>{asked}"
        f'<p class="meta">Yes: says what «{_text(group.reference.text)}» says; no: the other side; '
        f"neither: the scores do not place it. The split agrees with {group.agreement:.0%} of the "
        "pairs' weight.</p>"
        f'<div class="sides">{columns}</div>'
        + (f"<h4>Pairs that disagree most</h4>{disagree}" if disagree else "")
        + (f"<h4>Flagged pairs the rest of the question outweighs</h4>{overruled}" if overruled else "")
        + "</details>"
    )


def _groups(groups: Sequence[StanceGroupRecord], pairs: Sequence[FoundPair]) -> str:
    if not groups:
        return "<p>No question has a flagged contradiction.</p>"
    by_id = {pair.pair_id: pair for pair in pairs}
    return "".join(_group(group, by_id, opened=number == 0) for number, group in enumerate(groups))


def _filters(options: str, shown: int) -> str:
    return f"""<div class="filters">
<label>min P(contradiction) <input type="range" id="min-score" min="0" max="1" step="0.01" value="0">
<span id="min-score-value">0.00</span></label>
<label>question <select id="question"><option value="">all</option>{options}</select></label>
<label><input type="checkbox" id="flagged-only"> flagged only</label>
<label><input type="checkbox" id="comparable-only"> comparable only</label>
<span>shown: <b id="shown-count">{shown}</b></span> <span id="script-status" class="meta"></span>
</div>"""


def _figures(report: Mapping) -> str:
    shown = ("claims", "non_claims", "studies", "candidate_pairs", "comparable", "flagged", "stance_groups")
    values = dict(report) | {"non_claims": (report.get("non_claims") or {}).get("left_out")}
    return "".join(
        f"<span>{_text(name.replace('_', ' '))}: <b>{_text(values.get(name))}</b></span>" for name in shown
    )


def _reread(report: Mapping) -> str:
    """What the verifier re-read, said where the ranking is explained (nothing when it read none)."""
    reread = report.get("reread") or {}
    if not reread.get("pairs"):
        return ""
    by = "its score" if reread["rank"] == "verifier" else "the mean of its score and the classifier's"
    return (
        f"\nThe verifier ({_text(reread['verifier'])}) re-read the {reread['pairs']} best-ranked scored "
        f"pairs, which come first, ranked by {by}."
    )


def render_page(
    pairs: Sequence[FoundPair],
    groups: Sequence[StanceGroupRecord],
    report: Mapping,
    settings: Mapping,
    limit: int,
    reviews: Mapping[str, Mapping] | None = None,
) -> str:
    """The page of a find run: the ``limit`` best-ranked pairs, every stance group, the figures."""
    reviews = reviews or {}
    shown = list(pairs[:limit])
    questions = sorted({pair.question for pair in shown if pair.question}, key=lambda name: (len(name), name))
    options = "".join(f'<option value="{_text(name)}">{_text(name)}</option>' for name in questions)
    figures = _figures(report)
    empty = (
        f"<p><b>No pair to show:</b> {_text(report['empty_reason'])}</p>"
        if report.get("empty_reason")
        else ""
    )
    reviewed = sum(1 for pair in shown if pair.pair_id in reviews)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>SciCon finder: contradicting findings</title>
<style>{STYLE}</style></head><body>
<h1>Contradicting findings across studies</h1>
<p class="figures">{figures}</p>
<p class="meta">Settings: {_text(json.dumps(dict(settings), sort_keys=True))}.
Showing the {len(shown)} best-ranked of {len(pairs)} pairs ({reviewed} reviewed).
Comparable pairs come first, by score; the rest are not scored (their text shows they are
not about one question) and follow by P(same topic).{_reread(report)}</p>
<p id="script-errors"></p>
{_filters(options, len(shown))}
{empty}
<h2>Stance per question</h2>
{_groups(groups, pairs)}
<h2>Ranked pairs</h2>
{"".join(_pair(pair, reviews.get(pair.pair_id)) for pair in shown)}
<script>{SCRIPT}</script>
</body></html>
"""
