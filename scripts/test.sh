#!/usr/bin/env bash
# Sets everything up, then runs the whole test suite (offline) on every core, at most two by default:
# pytest-xdist workers, each test module on one worker (--dist loadscope: a module's shared lmms-eval runs and servers
# are built once), the slowest modules first (tests/module_times.json, tests/conftest.py; --no-loadscope-reorder keeps
# that order). GUI_EVAL_TEST_WORKERS=N picks the number of workers; 0 or 1 runs the suite serially in one process.
# Extra arguments pass to pytest (e.g. `bash scripts/test.sh -m "not slow"`, `bash scripts/test.sh -n 0`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1
cores="$(nproc 2>/dev/null || echo 1)"
workers="${GUI_EVAL_TEST_WORKERS:-$(( cores < 2 ? cores : 2 ))}"
parallel=()
if [ "$workers" -gt 1 ]; then
    parallel=(-n "$workers" --dist loadscope --no-loadscope-reorder)
    # one torch thread pool per worker, sized to its share of the cores (no oversubscription; floats stay within
    # tests/tolerance.py, as the serial suite does with OMP_NUM_THREADS=1)
    export OMP_NUM_THREADS="${OMP_NUM_THREADS:-$(( cores / workers > 0 ? cores / workers : 1 ))}"
fi
exec .venv/bin/python -m pytest -q "${parallel[@]}" "$@"
