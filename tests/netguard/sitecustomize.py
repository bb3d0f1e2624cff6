"""Test subprocesses only (``PYTHONPATH`` set by tests/conftest.py): refuse network access outside this machine."""

import network_guard

network_guard.install()
