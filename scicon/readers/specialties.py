"""Keyword lists that select the clinical-specialty subsets of MedNLI.

The paper evaluates on MedNLI and its cardiology, gynecology, endocrinology,
obstetrics and surgery subsets (Table 1, following "Clinical Contradiction
Detection", Makhervaks et al., EMNLP 2023). Those subsets are defined by topic; we
select them reproducibly with these lists: a pair belongs to a specialty when its
premise or hypothesis contains one of the specialty's terms as a whole word
(case-insensitive). Entries are regular expressions, so word families such as
"-ectomy" need one entry. A pair can belong to several specialties. Custom lists
can be given per benchmark with the ``keywords`` option instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

SPECIALTY_KEYWORDS: dict[str, tuple[str, ...]] = {
    "cardiology": (
        r"heart",
        r"cardiac",
        r"cardio\w*",
        r"myocardial",
        r"infarct\w*",
        r"coronary",
        r"arrhythmi\w*",
        r"atrial",
        r"fibrillation",
        r"afib",
        r"ventric\w*",
        r"chf",
        r"cad",
        r"stemi",
        r"nstemi",
        r"angina",
        r"hypertensi\w*",
        r"htn",
        r"valv\w*",
        r"aortic",
        r"mitral",
        r"tachycardi\w*",
        r"bradycardi\w*",
        r"ekg",
        r"ecg",
        r"echocardiogra\w*",
        r"cabg",
        r"pacemaker",
        r"stents?",
        r"troponins?",
        r"chest pain",
        r"murmurs?",
        r"endocarditis",
        r"pericardi\w*",
        r"cardiomyopath\w*",
    ),
    "gynecology": (
        r"uter\w*",
        r"ovar\w*",
        r"cervi\w*",
        r"vagin\w*",
        r"pelvic",
        r"endometri\w*",
        r"fibroids?",
        r"hysterectomy",
        r"menstrua\w*",
        r"menorrhagia",
        r"pap smear",
        r"gyn\w*",
        r"adnexal",
        r"vulv\w*",
        r"menopaus\w*",
        r"postmenopausal",
        r"oophorectomy",
    ),
    "endocrinology": (
        r"diabet\w*",
        r"dm",
        r"iddm",
        r"niddm",
        r"insulin",
        r"glucose",
        r"hyperglyc\w*",
        r"hypoglyc\w*",
        r"thyroid\w*",
        r"hypothyroid\w*",
        r"hyperthyroid\w*",
        r"a1c",
        r"hba1c",
        r"dka",
        r"adrenal",
        r"cortisol",
        r"pituitary",
        r"endocrin\w*",
        r"metformin",
        r"levothyroxine",
        r"cushing\w*",
    ),
    "obstetrics": (
        r"pregnan\w*",
        r"gestation\w*",
        r"prenatal",
        r"antenatal",
        r"postpartum",
        r"labou?r",
        r"delivery",
        r"delivered",
        r"cesarean",
        r"c-section",
        r"pre-?eclampsia",
        r"eclampsia",
        r"fetal",
        r"fetus",
        r"obstetric\w*",
        r"gravida",
        r"trimester",
        r"placenta\w*",
        r"g\d+p\d+",
    ),
    "surgery": (
        r"surger\w*",
        r"surgical\w*",
        r"operation",
        r"operative",
        r"postoperative",
        r"post-?op",
        r"intraoperative",
        r"preoperative",
        r"laparotomy",
        r"laparoscop\w*",
        r"resect\w*",
        r"excision",
        r"incision",
        r"anastomo\w*",
        r"\w+ectomy",
        r"\w+otomy",
        r"\w+plasty",
        r"grafts?",
        r"amputat\w*",
        r"transplant\w*",
        r"debridement",
        r"s/p",
    ),
}


def keyword_pattern(keywords: Sequence[str]) -> re.Pattern:
    return re.compile(r"(?<![\w-])(?:" + "|".join(keywords) + r")(?![\w-])", re.IGNORECASE)


def specialty_pattern(specialty: str) -> re.Pattern:
    if specialty not in SPECIALTY_KEYWORDS:
        raise KeyError(specialty)
    return keyword_pattern(SPECIALTY_KEYWORDS[specialty])
