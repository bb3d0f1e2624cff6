# Sourced by scripts/lock.sh and scripts/drift.sh: puts a pinned uv (the resolver behind the lock files) in a
# throwaway venv under $1 and sets UV to its path.
UV_VERSION="${GUI_EVAL_UV_VERSION:-0.13.9}"
make_uv() {
    python3 -m venv "$1/uv-venv"
    "$1/uv-venv/bin/python" -m pip install -q --disable-pip-version-check "uv==$UV_VERSION" 2>&1 | grep -v "^WARNING: Location" >&2 || true
    UV="$1/uv-venv/bin/uv"
}
