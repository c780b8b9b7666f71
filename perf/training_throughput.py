"""Training throughput of the judges and the student on this machine: tokens per second.

Trains the same classifier for the same number of steps on the same pairs once per batching
strategy (``random``: the default; ``group_by_length``: batches of similar length, less
padding) and prints, for each, the seconds, the real (non-padding) and padded tokens the
batches held and the tokens per second, with the ratio against ``random`` measured in the
same run. The settings are a params.yaml training block (``teacher.training`` by default). The
token counts are of batches drawn the way the trainer's sampler draws them: an estimate.

    python -m perf.training_throughput --pairs data/labelled/scicon-judgements/judgements.jsonl --steps 60
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np

from scicon.classifier_folder import load_tokenizer
from scicon.io import write_json
from scicon.params import read_params_file, validate_section
from scicon.records.dataset import Example
from scicon.train.lora import encode, finetune
from scicon.train.params import FinetuneParams

REPO = Path(__file__).resolve().parent.parent
STRATEGIES = ("random", "group_by_length")


def read_pairs(path: Path) -> list[Example]:
    """JSON lines with sentence1, sentence2 and ``label`` or ``gold`` (``contradiction``/other, or 1/0)."""
    examples = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            row = json.loads(line)
            label = row["label"] if "label" in row else row["gold"]
            positive = label == "contradiction" if isinstance(label, str) else int(label) == 1
            examples.append(
                Example(
                    example_id=f"{path.name}:{number}",
                    pmid=str(row.get("pmid") or number),
                    sentence1=row["sentence1"],
                    sentence2=row["sentence2"],
                    label=int(positive),
                    generator="benchmark",
                    split="train",
                )
            )
    return examples


def training_block(section: str) -> dict:
    node = read_params_file(REPO / "params.yaml")
    for part in section.split("."):
        node = node[part]
    return dict(node)


def padded_tokens(lengths: np.ndarray, batches: list[list[int]]) -> int:
    return int(sum(len(batch) * lengths[batch].max() for batch in batches))


def token_lengths(examples: list[Example], block: dict) -> np.ndarray:
    """Each pair's tokens as the trainer sees them (the block's tokenizer and ``max_length``)."""
    encoded = encode(examples, load_tokenizer(block["base_model"]), block["max_length"])
    return np.array([len(ids) for ids in encoded["input_ids"]])


def batch_tokens(lengths: np.ndarray, params: FinetuneParams, steps: int) -> dict:
    """The real and padded tokens of ``steps`` batches drawn as the trainer's sampler of
    ``params.batching`` draws them, seeded with the training seed: an estimate of the trainer's
    own batches, which its sampler seeds on its own."""
    import torch
    from transformers.trainer_pt_utils import LengthGroupedSampler

    size = params.per_device_batch_size * params.gradient_accumulation_steps
    generator = torch.Generator().manual_seed(params.seed)
    if params.batching == "group_by_length":
        order = list(LengthGroupedSampler(size, lengths=lengths.tolist(), generator=generator))
    else:
        order = torch.randperm(len(lengths), generator=generator).tolist()
    order = (order * (steps * size // len(order) + 1))[: steps * size]
    batches = [order[start : start + size] for start in range(0, len(order), size)]
    return {"real_tokens": int(lengths[order].sum()), "padded_tokens": padded_tokens(lengths, batches)}


def measure(examples: list[Example], lengths: np.ndarray, block: dict, strategy: str, steps: int) -> dict:
    values = {**block, "batching": strategy, "max_steps": steps, "early_stopping_patience": None}
    params = validate_section(FinetuneParams, values, "training.")
    with tempfile.TemporaryDirectory(prefix="scicon-throughput-") as folder:
        result = finetune(examples, [], params, Path(folder))
    seconds = result.metrics["train_seconds"]
    tokens = batch_tokens(lengths, params, result.metrics["steps"])
    return {
        "steps": result.metrics["steps"],
        "train_seconds": seconds,
        **tokens,
        "padding_share": round(1 - tokens["real_tokens"] / tokens["padded_tokens"], 3),
        "real_tokens_per_second": round(tokens["real_tokens"] / seconds, 1),
        "padded_tokens_per_second": round(tokens["padded_tokens"] / seconds, 1),
        "train_loss_mean": result.metrics["train_loss_mean"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", required=True, help="JSON lines: sentence1, sentence2, label or gold")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--section", default="teacher.training", help="the params.yaml training block")
    parser.add_argument("--max-examples", type=int, help="the first N pairs only")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    examples = read_pairs(Path(args.pairs))[: args.max_examples]
    block = training_block(args.section)
    lengths = token_lengths(examples, block)
    figures: dict = {"pairs": len(examples), "section": args.section, "base_model": block["base_model"]}
    for strategy in STRATEGIES:
        figures[strategy] = measure(examples, lengths, block, strategy, args.steps)
        print(strategy, figures[strategy], flush=True)
    base, grouped = figures["random"], figures["group_by_length"]
    figures["speed_up_real_tokens_per_second"] = round(
        grouped["real_tokens_per_second"] / base["real_tokens_per_second"], 2
    )
    print(json.dumps(figures, indent=2))
    if args.json:
        write_json(Path(args.json), figures)


if __name__ == "__main__":
    main()
