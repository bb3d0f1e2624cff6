"""The suite's time budget from one measured run: seconds per test module and the slowest tests.

    .venv/bin/python -m pytest -q -n 2 --dist loadscope --junitxml=/tmp/junit.xml   # (what scripts/test.sh runs)
    .venv/bin/python scripts/test_times.py /tmp/junit.xml            # prints the tables docs/setup.md keeps
    .venv/bin/python scripts/test_times.py /tmp/junit.xml --write    # also rewrites tests/module_times.json

``tests/module_times.json`` holds the seconds of each module (test time only; set-up of a module's shared runs counts
in its first test): ``tests/conftest.py`` hands the modules to the pytest-xdist workers slowest first, so the longest
ones never start last. A module missing from it (a new one) goes after the measured ones, in file order.
"""

from __future__ import annotations

import argparse
import json
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

TIMES = Path(__file__).resolve().parents[1] / "tests" / "module_times.json"


def read_junit(path: Path) -> list[tuple[str, str, float]]:
    """``(module file, test id, seconds)`` of every test case in a pytest junit XML file."""
    cases = []
    for case in ET.parse(path).getroot().iter("testcase"):
        module = case.get("classname", "").split(".")
        # classname is "tests.test_x" or "tests.test_x.TestClass": the module is the first test_* part
        name = next((part for part in module if part.startswith("test_")), module[-1])
        cases.append((f"{name}.py", f"{name}.py::{case.get('name')}", float(case.get("time") or 0.0)))
    return cases


def module_seconds(cases: list[tuple[str, str, float]]) -> dict[str, float]:
    total: dict[str, float] = defaultdict(float)
    for module, _test, seconds in cases:
        total[module] += seconds
    return dict(sorted(total.items(), key=lambda kv: -kv[1]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("junit", type=Path, help="pytest --junitxml file of a whole-suite run")
    ap.add_argument("--top", type=int, default=25, help="how many modules and tests to list (default 25)")
    ap.add_argument("--write", action="store_true", help=f"rewrite {TIMES.relative_to(TIMES.parents[1])}")
    args = ap.parse_args(argv)
    cases = read_junit(args.junit)
    if not cases:
        print(f"{args.junit}: no test cases", file=sys.stderr)
        return 1
    modules = module_seconds(cases)
    total = sum(modules.values())
    print(f"{len(cases)} tests, {total / 60:.1f} min of test time in {len(modules)} modules\n")
    print("| module | tests | seconds | share |\n|---|---:|---:|---:|")
    counts: dict[str, int] = defaultdict(int)
    for module, _t, _s in cases:
        counts[module] += 1
    for module, seconds in list(modules.items())[:args.top]:
        print(f"| `{module}` | {counts[module]} | {seconds:.0f} | {100 * seconds / total:.1f}% |")
    print("\n| test | seconds |\n|---|---:|")
    for _m, test, seconds in sorted(cases, key=lambda c: -c[2])[:args.top]:
        print(f"| `{test}` | {seconds:.0f} |")
    if args.write:
        TIMES.write_text(json.dumps({m: round(s, 1) for m, s in modules.items()}, indent=1) + "\n", encoding="utf-8")
        print(f"\nwrote {TIMES}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
