"""GUI Knowledge Bench throughput: building the default synthetic set, and answers parsed per second.

Run: python benchmarks/bench_knowledge.py
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gui_tasks.knowledge.answer import parse_answer  # noqa: E402
from gui_tasks.knowledge.synth import build_knowledge_synth, build_questions  # noqa: E402


def responses(n: int) -> list[tuple[str, str]]:
    """A mix of the response shapes the parser meets: clean JSON, fenced, single quotes, free text, long reasoning."""
    rng = random.Random(0)
    thought = "The toggle on the right of the row is green, so the setting is on. " * 8
    shapes = [lambda a: json.dumps({"thought": thought, "answer": a}), lambda a: f"```json\n{json.dumps({'answer': a})}\n```",
              lambda a: str({"thought": "x", "answer": a}), lambda a: f"{thought}\nAnswer: {a}", lambda a: thought * 20]
    out = []
    for i in range(n):
        qtype = "yes_or_no" if i % 3 == 0 else "multiple_choice"
        answer = rng.choice(["yes", "no", "unknown"]) if qtype == "yes_or_no" else rng.choice("ABCD")
        out.append((shapes[i % len(shapes)](answer), qtype))
    return out


def main() -> int:
    t = time.perf_counter()
    qs = build_questions(0, 8)
    t_q = time.perf_counter() - t
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        build_knowledge_synth(Path(tmp), seed=0, per_subtask=8)
        t_set = time.perf_counter() - t
        n_png = sum(1 for _ in Path(tmp).rglob("*.png"))
    print(f"questions (8 sub-tasks x 8): {len(qs)} generated in {t_q * 1000:.0f} ms")
    print(f"default synthetic set, six languages: {t_set:.2f} s, {n_png} screenshots ({n_png / t_set:.0f} per second)")
    batch = responses(3000)
    t = time.perf_counter()
    parsed = sum(parse_answer(text, qtype).status == "parsed" for text, qtype in batch)
    dt = time.perf_counter() - t
    print(f"parse_answer: {len(batch) / dt:.0f} responses per second ({parsed} of {len(batch)} parsed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
