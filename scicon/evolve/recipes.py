"""The paper's method and its ablations as named recipes: which component fills each part.

A recipe names, for each part of the search, the component the paper's Table 2 row uses.
The method itself (:data:`PAPER`) is the paper's: the backbone rewrites (E.3.3), judges
the topic (E.3.5) and the claim (E.3.6), and is the teacher (E.3.4), in Algorithm 1. A
run records the recipe its settings match (``custom`` otherwise). A recipe is also a params
value: ``evolve.recipe`` sets the five parts from its row (:class:`EvolveParams`), which is
how ``profiles/paper.yaml`` chooses the paper's method (see :mod:`scicon.profiles`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

PARTS = ("search", "transformation", "similarity", "claim", "goal")


@dataclass(frozen=True)
class Recipe:
    name: str
    paper_row: str  # the row of the paper's Table 2 (or where else it comes from)
    search: str
    transformation: str
    similarity: str
    claim: str
    goal: str

    def parts(self) -> dict[str, str]:
        return {part: getattr(self, part) for part in PARTS}

    def variant(self, name: str, paper_row: str, **changes: str) -> Recipe:
        return replace(self, name=name, paper_row=paper_row, **changes)


# "Evolutionary Self-Supervised Contradiction Detection for Biomedical NLI", Algorithm 1 and
# section 3.2.1: every foundation-model call (REPLACEWORDS, CLASSIFY, SIMSCORE, CLAIMSCORE)
# goes to the backbone.
PAPER = Recipe(
    "evonli",
    "Ours (EvoNLI)",
    search="evolutionary",
    transformation="llm",
    similarity="llm",
    claim="llm",
    goal="llm",
)

RECIPES: tuple[Recipe, ...] = (
    PAPER,
    PAPER.variant("no_claim_check", "No Claim Checking", claim="off"),
    PAPER.variant("no_similarity_check", "No Similarity Checking", similarity="off"),
    PAPER.variant("cross_encoder", "Cross Encoder", goal="classifier"),
    PAPER.variant("random_replacement", "Random Replacement", transformation="random"),
    PAPER.variant("mlm_replacement", "MLM Replacements", transformation="mlm"),
    PAPER.variant("direct_prompt", "Direct LLM Prompt (no algo)", search="direct_prompt"),
    PAPER.variant("rule_replacement", "not in the paper: the rule operators rewrite", transformation="rules"),
)
CUSTOM = "custom"
BY_NAME = {recipe.name: recipe for recipe in RECIPES}


def recipes_table() -> str:
    """The Markdown table of recipes (the README and docs show it; a test keeps them current)."""
    lines = ["| `recipe` | paper (Table 2) | " + " | ".join(f"`{p}`" for p in PARTS) + " |"]
    lines.append("|" + "---|" * (len(PARTS) + 2))
    for recipe in RECIPES:
        cells = [f"`{recipe.name}`", recipe.paper_row, *(f"`{v}`" for v in recipe.parts().values())]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
