"""The finder at scale: candidate generation at 1k, 10k and 100k claims, and the cost per claim.

Candidate generation (an HNSW graph over the claim embeddings, each claim's nearest claims of
other studies) runs once per size in a fresh process, so its peak memory is its own. The
vectors are real MiniLM embeddings of the given claims, repeated with a little noise up to the
size (neighbour structure like a corpus's, whatever its size), in groups of two claims per
study as the abstracts give. Beside it, on the real claims: sentences encoded per second and
claim pairs scored per second by the classifier, both on this machine's cores. The
projection to all of PubMed is arithmetic on these figures, printed with its assumptions.

    python -m perf.find_scaling --abstracts data/interim/abstracts.jsonl --classifier models/scicon-classifier
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from scicon.classifier import ContradictionClassifier
from scicon.find.neighbours import candidate_pairs
from scicon.fitted.base import encode
from scicon.io import read_jsonl, write_json
from scicon.records.corpus import Abstract, Role

SIZES = (1_000, 10_000, 100_000)
NOISE = 0.05  # standard deviation per dimension before renormalising: near copies stay near


def peak_rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def one_size(vectors_path: Path, size: int, args) -> dict:
    """Run in a child process: build and query the index for ``size`` claims."""
    base = np.load(vectors_path)
    rng = np.random.default_rng(size)
    rows = rng.integers(0, len(base), size)
    vectors = base[rows] + rng.normal(0.0, NOISE, (size, base.shape[1])).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    groups = [str(i // 2) for i in range(size)]
    before = peak_rss_mib()
    started = time.perf_counter()
    found = candidate_pairs(vectors, groups, args.neighbours, args.links, args.construction, args.search)
    seconds = time.perf_counter() - started
    return {
        "claims": size,
        "seconds": round(seconds, 2),
        "candidate_pairs": len(found.pairs),
        "claims_per_second": round(size / seconds, 1),
        "peak_rss_mib": round(peak_rss_mib(), 1),
        "rss_before_mib": round(before, 1),
    }


def claim_texts(path: Path, limit: int) -> list[str]:
    texts = []
    for abstract in read_jsonl(path, Abstract):
        texts += [s.text for s in abstract.sentences if s.role is Role.CONCLUSIONS]
    return texts[:limit]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--abstracts", required=True, type=Path)
    parser.add_argument("--classifier", required=True)
    parser.add_argument("--encoder", default="embedded:all-minilm-l6-v2")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--neighbours", type=int, default=10)
    parser.add_argument("--links", type=int, default=32)
    parser.add_argument("--construction", type=int, default=80)
    parser.add_argument("--search", type=int, default=64)
    parser.add_argument("--scored-pairs", type=int, default=512)
    parser.add_argument("--pubmed-abstracts", type=float, default=25e6, help="abstracts to project to")
    parser.add_argument("--claims-per-abstract", type=float, default=2.0)
    parser.add_argument(
        "--scored-share",
        type=float,
        default=1.0,
        help="share of candidate pairs that pass the topic and comparability checks and are scored "
        "(scored / candidate_pairs in reports/find.json of a run on a similar corpus)",
    )
    parser.add_argument("--out", type=Path, help="also write the figures as JSON here")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--vectors", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(one_size(args.vectors, args.one, args)))
        return

    texts = claim_texts(args.abstracts, 2000)
    encode(args.encoder, texts[:32], 32)  # load the encoder before timing
    started = time.perf_counter()
    vectors = encode(args.encoder, texts, 64)
    encode_rate = len(texts) / (time.perf_counter() - started)
    classifier = ContradictionClassifier(args.classifier, batch_size=32)
    pairs = [(texts[i], texts[(i * 7 + 1) % len(texts)]) for i in range(args.scored_pairs)]
    classifier.contradiction_probabilities(pairs[:32])
    started = time.perf_counter()
    classifier.contradiction_probabilities(pairs)
    score_rate = len(pairs) / (time.perf_counter() - started)

    sizes = []
    with tempfile.TemporaryDirectory() as folder:
        vectors_path = Path(folder) / "vectors.npy"
        np.save(vectors_path, vectors.astype(np.float32))
        for size in args.sizes:
            command = [
                sys.executable,
                "-m",
                "perf.find_scaling",
                "--abstracts",
                str(args.abstracts),
                "--classifier",
                args.classifier,
                "--one",
                str(size),
                "--vectors",
                str(vectors_path),
                "--neighbours",
                str(args.neighbours),
                "--links",
                str(args.links),
                "--construction",
                str(args.construction),
                "--search",
                str(args.search),
            ]
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            sizes.append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(
                f"{size:>8} claims: {sizes[-1]['seconds']:>8.2f} s, "
                f"peak RSS {sizes[-1]['peak_rss_mib']:.0f} MiB, "
                f"{sizes[-1]['candidate_pairs']} candidate pairs",
                flush=True,
            )

    claims = args.pubmed_abstracts * args.claims_per_abstract
    largest = sizes[-1]
    pairs_per_claim = largest["candidate_pairs"] / largest["claims"]
    projection = {
        "abstracts": args.pubmed_abstracts,
        "claims": claims,
        "encode_core_hours": round(claims / encode_rate / 3600 * 2, 1),
        "candidate_pairs": round(claims * pairs_per_claim),
        "scored_share": args.scored_share,
        "score_core_hours_both_orders": round(
            claims * pairs_per_claim * args.scored_share * 2 / score_rate / 3600 * 2, 1
        ),
        "index_seconds_if_linear_from_largest": round(largest["seconds"] * claims / largest["claims"]),
        "flat_vectors_gib": round(claims * vectors.shape[1] * 4 / 2**30, 1),
        "assumptions": "2 cores measured here (core-hours = wall hours x 2); candidate pairs per claim as at "
        f"{largest['claims']} claims; HNSW time grows a little faster than linear (n log n)",
    }
    figures = {
        "claims_encoded_per_second": round(encode_rate, 1),
        "pairs_scored_per_second": round(score_rate, 1),
        "classifier": args.classifier,
        "settings": {k: getattr(args, k) for k in ("neighbours", "links", "construction", "search")},
        "sizes": sizes,
        "pubmed_projection": projection,
    }
    print(json.dumps(figures, indent=2))
    if args.out:
        write_json(args.out, figures)


if __name__ == "__main__":
    main()
