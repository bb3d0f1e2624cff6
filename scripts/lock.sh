#!/usr/bin/env bash
# Refreshes the lock files in requirements/ with uv's resolver (a pinned uv in a throwaway venv):
#   runtime.lock  what `gui-eval` needs to run, with the backends extra (lmms-eval's own backends; scripts/setup.sh demo)
#   test.lock     runtime.lock plus the test extra, same versions (scripts/setup.sh test, CI)
#   vllm.lock     the served-engine environment .venv-vllm (scripts/setup_vllm.sh)
# Each resolves setup.cfg's ranges today, for the tested interpreter: CPython 3.11 on x86_64 Linux.
# After a refresh: run `bash scripts/test.sh` (the whole suite) and commit the locks only if it passes;
# `bash scripts/drift.sh` shows what the newest releases change before you do (docs/maintenance.md).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/uv_tool.sh
. scripts/uv_tool.sh
tools="$(mktemp -d)"
trap 'rm -rf "$tools"' EXIT
make_uv "$tools"
uv=("$UV" pip compile --quiet --python-version 3.11 --python-platform x86_64-manylinux_2_28
    --generate-hashes --custom-compile-command "bash scripts/lock.sh" ${GUI_EVAL_LOCK_ARGS:-})
"${uv[@]}" setup.cfg --extra backends --constraint requirements/torch.txt -o requirements/runtime.lock
"${uv[@]}" setup.cfg --extra backends --extra test --constraint requirements/torch.txt --constraint requirements/runtime.lock \
    -o requirements/test.lock
"${uv[@]}" setup.cfg requirements/vllm.in --override requirements/vllm-overrides.txt -o requirements/vllm.lock
for f in runtime test vllm; do
    echo "[lock] requirements/$f.lock: $(grep -c '^[A-Za-z0-9]' "requirements/$f.lock") packages" >&2
done
