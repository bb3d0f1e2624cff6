#!/usr/bin/env bash
# Drift check for maintainers: would a fresh `pip install gui-eval` today still work?
# Resolves the newest releases setup.cfg's ranges allow (uv, as scripts/lock.sh does, but ignoring the locks),
# prints what changed against requirements/test.lock, installs that set into a throwaway venv and runs the smoke
# subset (scripts/drift_smoke.py: one lmms-eval run per benchmark family, the viewer, a submission) there.
# Prints what broke; exits 1 when anything did. Nothing in the repository or .venv is changed.
#   bash scripts/drift.sh                     newest releases within setup.cfg's ranges and exclusions
#   bash scripts/drift.sh --lift-exclusions   the same without the known-bad exclusions: are they still needed?
#   bash scripts/drift.sh --pytest ARGS...    also run pytest ARGS in the throwaway venv (e.g. -m "not slow")
# torch/torchvision stay at requirements/torch.txt (the pair this machine kind installs from its disk; a newer torch
# is a several-GB download): GUI_EVAL_DRIFT_TORCH="torch==X torchvision==Y" moves them. GUI_EVAL_DRIFT_DIR keeps
# the throwaway folder (default: a temporary one, removed at the end). Docs: docs/maintenance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
lift=0; pytest_args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --lift-exclusions) lift=1; shift ;;
        --pytest) shift; pytest_args=("$@"); break ;;
        *) echo "usage: bash scripts/drift.sh [--lift-exclusions] [--pytest ARGS...]" >&2; exit 2 ;;
    esac
done
if [ -n "${GUI_EVAL_DRIFT_DIR:-}" ]; then work="$GUI_EVAL_DRIFT_DIR"; mkdir -p "$work"; else
    work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT; fi
# shellcheck source=scripts/uv_tool.sh
. scripts/uv_tool.sh
make_uv "$work"

# setup.cfg's requirements (install_requires + the test extra) as a requirements file; --lift-exclusions drops the
# block of known-bad exclusions (the lines after the "Known-bad releases" comment).
python3 - "$lift" > "$work/newest.in" <<'PY'
import re, sys
# Read raw: configparser drops the comment lines inside a value, and the exclusion block is found by its comment.
text = open("setup.cfg", encoding="utf-8").read()
def block(key):
    m = re.search(rf"^{key}\s*=\s*\n((?:[ \t]+.*\n|[ \t]*\n)+)", text, re.M)
    return [line.strip() for line in m.group(1).splitlines() if line.strip()]
lift = sys.argv[1] == "1"; skipping = False
for line in block("install_requires"):
    if line.startswith("#"):
        skipping = skipping or (lift and "Known-bad releases" in line)
    else:
        print(f"# lifted: {line}" if skipping else line)
for line in block("test"):
    if not line.startswith("#"):
        print(line)
PY
torch_pins="${GUI_EVAL_DRIFT_TORCH:-$(grep -v '^#' requirements/torch.txt | xargs)}"
printf '%s\n' $torch_pins > "$work/torch.txt"
"$UV" pip compile --quiet --python-version 3.11 --python-platform x86_64-manylinux_2_28 --generate-hashes \
    "$work/newest.in" --constraint "$work/torch.txt" -o "$work/newest.lock"
grep '^# lifted' "$work/newest.in" | sed 's/^/[drift] /' >&2 || true

echo "== what changed against requirements/test.lock (torch pair held at: $torch_pins)"
python3 - requirements/test.lock "$work/newest.lock" <<'PY'
import re, sys
def pins(path):
    return dict(re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^ \\;]+)", open(path).read(), re.M))
old, new = pins(sys.argv[1]), pins(sys.argv[2])
rows = [(n, old.get(n, "-"), new.get(n, "-")) for n in sorted(set(old) | set(new)) if old.get(n) != new.get(n)]
for name, a, b in rows:
    print(f"  {name:32s} {a:>14s} -> {b}")
print(f"  {len(rows)} of {len(set(old) | set(new))} packages differ")
PY

echo "== installing the newest set into a throwaway venv ($work/venv)"
python3 -m venv "$work/venv"
pip=("$work/venv/bin/python" -m pip install -q --disable-pip-version-check)
"${pip[@]}" --require-hashes --no-deps -r "$work/newest.lock" 2>&1 | grep -v "^WARNING: Location" >&2 || true
"${pip[@]}" --no-deps -e . 2>&1 | grep -v "^WARNING: Location" >&2 || true
broken=0
if ! "$work/venv/bin/python" -c "import torch, lmms_eval, lmms_eval.evaluator, gui_tasks, pluggy"; then
    echo "[drift] BROKEN: the newest set does not import (above)"; exit 1
fi
"$work/venv/bin/gui-eval" install-lmms-hook >/dev/null
bash scripts/install_fonts.sh

echo "== smoke subset in the newest set"
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1
"$work/venv/bin/python" scripts/drift_smoke.py "$work/smoke" || broken=1
if [ ${#pytest_args[@]} -gt 0 ]; then
    echo "== pytest ${pytest_args[*]} in the newest set"
    "$work/venv/bin/python" -m pytest -q "${pytest_args[@]}" || broken=1
fi
if [ "$broken" = 1 ]; then echo "[drift] BROKEN with the newest releases (see the FAILED lines above)"; exit 1; fi
echo "[drift] OK: the newest releases within the ranges pass the smoke subset"
