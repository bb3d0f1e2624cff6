"""The test suite's network guard: hosts outside this machine are refused, loopback works (accelerate needs it)."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading

import pytest
from network_guard import NetworkBlocked


def test_connection_outside_this_machine_is_refused():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s, pytest.raises(NetworkBlocked, match="203.0.113.7:443"):
        s.connect(("203.0.113.7", 443))  # TEST-NET-3: never reached, the guard refuses first
    with pytest.raises(NetworkBlocked, match="name lookup of 'huggingface.co'"):
        socket.create_connection(("huggingface.co", 443), timeout=1)


def test_loopback_still_works():
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    got = []
    t = threading.Thread(target=lambda: got.append(server.accept()[0].recv(5)))
    t.start()
    with socket.create_connection(("localhost", port), timeout=5) as c:
        c.sendall(b"hello")
    t.join(5)
    server.close()
    assert got == [b"hello"]


def test_subprocesses_are_guarded_too(subprocess_env):
    code = "import socket\ntry:\n    socket.create_connection(('198.51.100.1', 80), timeout=1)\nexcept ConnectionRefusedError as e:\n    print(e)\n"
    out = subprocess.run([sys.executable, "-c", code], env=subprocess_env, capture_output=True, text=True, timeout=60).stdout
    assert "network access blocked in tests: connection to 198.51.100.1:80" in out
