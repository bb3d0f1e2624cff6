"""Building a GUI-XL-Memory (seed sections 4.2-4.3, 5.1, appendix B.1) with the gui_hf backend.

For each parallel pair the model answers with a reasoning chain (prompt ``mpr-cot-v1``) in
English and in the target language. A pair qualifies when the English answer is right and the
target-language answer wrong ("positive-negative sample pairs", section 4.2). Up to
``memory_size`` qualifying pairs per basic dimension are drawn at random (seeded); for each:

    key   r = h^(l)(Q_tgt, I_tgt)   last token of the target prompt (Eq. 3), prompt ``key_protocol``
    value v = h^(l)(X_en, I_en) - h^(l)(X_tgt, I_tgt)   last token of prompt + chain + answer (Eq. 4)

at every requested layer. ``require_correctness=False`` keeps every pair regardless of answers:
not the paper's rule, meant for smoke tests on random checkpoints; it is recorded.
"""

from __future__ import annotations

import datetime as _dt
import random
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Sequence

from gui_interventions.payloads import RequestContext
from gui_interventions.xli_memory import BASIC_DIMENSIONS, XLIMemory, entry_record, stack_states
from gui_core.letters import PARSER_PROTOCOL
from gui_tasks.mpr.lmms_task import doc_to_visual, score_response
from gui_tasks.mpr.prompts import DIRECT, REASONING, build_prompt
from gui_tasks.mpr.xli.data import DataSpec, drop_overlap, parallel_pairs

LAYER_CONVENTION = "paper Eq. 1: h^(l) = output of decoder layer l (1-based) = hidden_states[l]"


@dataclass
class PairOutcome:
    """How the model answered one parallel pair with reasoning chains."""

    id: str
    dimension: str
    answer: str
    en_response: str
    tgt_response: str
    en_pred: str | None
    tgt_pred: str | None
    en_correct: bool
    tgt_correct: bool

    @property
    def qualifies(self) -> bool:
        """Right in English, wrong in the target language (seed section 4.2)."""
        return self.en_correct and not self.tgt_correct


@dataclass
class BuildReport:
    """Counts the build command prints and stores in the memory's provenance."""

    candidates: int = 0
    overlap_dropped: int = 0
    en_correct: int = 0
    tgt_wrong: int = 0
    qualifying: dict[str, int] = field(default_factory=dict)
    kept: dict[str, int] = field(default_factory=dict)
    generate_seconds: float = 0.0
    states_seconds: float = 0.0

    @property
    def qualifying_total(self) -> int:
        return sum(self.qualifying.values())

    def lines(self) -> list[str]:
        dims = ", ".join(f"{d} {self.qualifying.get(d, 0)}/{self.kept.get(d, 0)}" for d in self.qualifying)
        return [f"candidate pairs: {self.candidates} (dropped as overlapping the evaluation set: {self.overlap_dropped})",
                f"right in English: {self.en_correct}; wrong in the target language: {self.tgt_wrong}",
                f"qualifying pairs: {self.qualifying_total} (per dimension qualifying/kept: {dims})",
                f"kept in memory: {sum(self.kept.values())}",
                f"time: generation {self.generate_seconds:.1f} s, states {self.states_seconds:.1f} s"]


def _request(doc: dict[str, Any], protocol: str, i: int, max_new_tokens: int) -> RequestContext:
    return RequestContext(text=build_prompt(doc["question"], doc["options"], protocol), images=tuple(doc_to_visual(doc)),
                          doc_id=i, task="gui_xli_build", gen_kwargs={"max_new_tokens": int(max_new_tokens), "do_sample": False},
                          doc=doc)


def answer_pairs(lm: Any, pairs: Sequence[tuple[dict, dict]], max_new_tokens: int) -> list[PairOutcome]:
    """Reasoning-chain answers in both languages, scored with the MPR letter parser."""
    en_reqs = [_request(en, REASONING, i, max_new_tokens) for i, (en, _) in enumerate(pairs)]
    tgt_reqs = [_request(tgt, REASONING, i, max_new_tokens) for i, (_, tgt) in enumerate(pairs)]
    en_out, tgt_out = lm.generate_texts(en_reqs), lm.generate_texts(tgt_reqs)
    outcomes = []
    for (en, tgt), a, b in zip(pairs, en_out, tgt_out):
        sa, sb = score_response(en, a), score_response(tgt, b)
        outcomes.append(PairOutcome(en["id"], en["dimension"], en["answer"], a, b, sa["pred"], sb["pred"],
                                    bool(sa["correct"]), bool(sb["correct"])))
    return outcomes


def select(outcomes: Sequence[PairOutcome], memory_size: int, seed: int, require_correctness: bool = True) -> list[int]:
    """Indices kept: per dimension, up to ``memory_size`` qualifying pairs drawn at random (seeded), in input order."""
    by_dim: dict[str, list[int]] = {}
    for i, o in enumerate(outcomes):
        if o.qualifies or not require_correctness:
            by_dim.setdefault(o.dimension, []).append(i)
    rng = random.Random(f"gui-xli-memory:{seed}")
    kept: list[int] = []
    for dim in sorted(by_dim):
        idx = by_dim[dim]
        kept += idx if len(idx) <= memory_size else rng.sample(idx, memory_size)
    return sorted(kept)


def build_memory(lm: Any, spec: DataSpec, lang: str, *, layers: Sequence[int] | None = None, memory_size: int = 10,
                 dimensions: Sequence[str] = BASIC_DIMENSIONS, require_correctness: bool = True,
                 key_protocol: str = DIRECT, max_new_tokens: int = 256, exclude: DataSpec | None = None,
                 defaults: dict[str, Any] | None = None, model_name: str = "",
                 log: Callable[[str], None] = lambda s: None) -> tuple[XLIMemory | None, BuildReport]:
    """Run the model on the parallel set and return the memory (None when no pair qualifies) and the counts."""
    if lang == "en":
        raise ValueError("the target language must not be English")
    bad = [d for d in dimensions if d not in BASIC_DIMENSIONS]
    if bad:
        raise ValueError(f"memories are built for the basic dimensions {BASIC_DIMENSIONS} (RI/SI aggregate them); got {bad}")
    n_layers = len(lm.layers)
    layers = sorted({int(x) for x in (layers or range(1, n_layers + 1))})
    if not layers or layers[0] < 1 or layers[-1] > n_layers:
        raise ValueError(f"layers must lie in 1..{n_layers}, got {layers}")
    report = BuildReport()
    pairs = parallel_pairs(spec, lang, dimensions)
    pairs, report.overlap_dropped = drop_overlap(pairs, exclude)
    report.candidates = len(pairs)
    log(f"answering {len(pairs)} pairs with reasoning chains in en and {lang}")
    t0 = time.perf_counter()
    outcomes = answer_pairs(lm, pairs, max_new_tokens)
    report.generate_seconds = time.perf_counter() - t0
    report.en_correct = sum(o.en_correct for o in outcomes)
    report.tgt_wrong = sum(not o.tgt_correct for o in outcomes)
    report.qualifying = {d: sum(o.qualifies for o in outcomes if o.dimension == d) for d in dimensions}
    kept = select(outcomes, memory_size, spec.seed, require_correctness)
    report.kept = {d: sum(outcomes[i].dimension == d for i in kept) for d in dimensions}
    if not kept:
        return None, report
    t0 = time.perf_counter()
    chosen = [pairs[i] for i in kept]
    keys = lm.last_token_states([_request(tgt, key_protocol, i, max_new_tokens) for i, (_, tgt) in enumerate(chosen)], layers)
    x_en = lm.last_token_states([_request(en, REASONING, i, max_new_tokens) for i, (en, _) in enumerate(chosen)], layers,
                                continuations=[outcomes[i].en_response for i in kept])
    x_tgt = lm.last_token_states([_request(tgt, REASONING, i, max_new_tokens) for i, (_, tgt) in enumerate(chosen)], layers,
                                 continuations=[outcomes[i].tgt_response for i in kept])
    report.states_seconds = time.perf_counter() - t0
    values = {layer: x_en[layer] - x_tgt[layer] for layer in layers}
    entries = [entry_record(outcomes[i].id, outcomes[i].dimension, answer=outcomes[i].answer, en_pred=outcomes[i].en_pred,
                            tgt_pred=outcomes[i].tgt_pred, qualifies=outcomes[i].qualifies) for i in kept]
    model = lm.model
    provenance = {
        "model": model_name or str(getattr(model.config, "_name_or_path", "")),
        "model_class": type(model).__name__,
        "hidden_size": int(keys[layers[0]].shape[-1]),
        "num_layers": n_layers,
        "layers": layers,
        "layer_convention": LAYER_CONVENTION,
        "lang": lang,
        "base_lang": "en",
        "dimensions": list(dimensions),
        "sample_ids": [e["id"] for e in entries],
        "memory_size": int(memory_size),
        "require_correctness": bool(require_correctness),
        "data": spec.describe(),
        "excluded": exclude.describe() if exclude else None,
        "key_protocol": key_protocol,
        "chain_protocol": REASONING,
        "parser_protocol": PARSER_PROTOCOL,
        "max_new_tokens": int(max_new_tokens),
        "defaults": dict(defaults or {}),
        "report": asdict(report),
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }
    memory = XLIMemory(tuple(layers), stack_states(keys, layers), stack_states(values, layers), entries, provenance)
    return memory, report
