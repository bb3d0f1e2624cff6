# Sourced by scripts/setup.sh and scripts/setup_vllm.sh: the one place that says which interpreter the lock files
# in requirements/ were compiled for (CPython 3.11 on x86_64 Linux, scripts/lock.sh).
LOCKED_PLATFORM="CPython 3.11, linux, x86_64"
# on_locked_platform PYTHON: exit status 0 when PYTHON is the interpreter the locks are for.
on_locked_platform() {
    "$1" -c 'import sys, platform; sys.exit(not (sys.version_info[:2] == (3, 11) and sys.platform == "linux" and platform.machine() == "x86_64"))'
}
