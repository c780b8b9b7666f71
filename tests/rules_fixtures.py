"""A small fictional trial abstract shared by the rule tests (names and numbers invented)."""

from __future__ import annotations

from scicon.records.corpus import Abstract, Role, Sentence

TRIAL = Abstract(
    pmid="T1",
    origin="tests:T1",
    sentences=tuple(
        Sentence(role=Role(role), text=text)
        for role, text in [
            ("OBJECTIVE", "To compare velanoxet versus warfarin in older adults with atrial fibrillation."),
            (
                "METHODS",
                "Adults aged 65 years or older were randomised to velanoxet or warfarin for 12 months.",
            ),
            (
                "RESULTS",
                "Major bleeding occurred in 4% of velanoxet patients and 9% of warfarin patients (p<0.01).",
            ),
            ("RESULTS", "Stroke occurred in 12 of 410 patients given velanoxet."),
            ("CONCLUSIONS", "Velanoxet reduced major bleeding compared with warfarin."),
            ("CONCLUSIONS", "Velanoxet was superior to warfarin for the prevention of bleeding."),
        ]
    ),
)
