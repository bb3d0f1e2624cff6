"""A socket guard for the test suite: connections and name lookups outside this machine are refused.

Installed by ``tests/conftest.py`` in the pytest process and, through ``sitecustomize.py`` in
this folder (put first on ``PYTHONPATH`` by the ``subprocess_env`` fixture), in every lmms-eval
or accelerate subprocess. Loopback (accelerate / torch.distributed rendezvous), Unix sockets
and this host's own name stay usable.
"""

from __future__ import annotations

import ipaddress
import socket

_MARK = "__gui_eval_network_guard__"


class NetworkBlocked(ConnectionRefusedError):
    """A test tried to reach a host outside this machine."""


def _local_names() -> set[str]:
    names = {"", "localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}
    try:
        host = socket.gethostname()
        names.add(host.lower())
        names.update(info[4][0].lower() for info in socket.getaddrinfo(host, None))  # this machine's own addresses
    except OSError:
        pass
    return names


def is_local(host) -> bool:
    """Loopback, unspecified (bind-all) addresses and this machine's own names."""
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    host = str(host).strip("[]").lower()
    try:
        ip = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return host in _LOCAL_NAMES
    return ip.is_loopback or ip.is_unspecified or str(ip) in _LOCAL_NAMES


def _is_ip(host) -> bool:
    try:
        ipaddress.ip_address(str(host.decode() if isinstance(host, bytes) else host).strip("[]").split("%")[0])
    except ValueError:
        return False
    return True


def _check(address, family) -> None:
    if family == getattr(socket, "AF_UNIX", object()) or not isinstance(address, tuple):
        return
    if not is_local(address[0]):
        raise NetworkBlocked(f"network access blocked in tests: connection to {address[0]}:{address[1]}")


def install() -> None:
    """Patch ``socket.socket.connect``/``connect_ex`` and ``socket.getaddrinfo`` (idempotent)."""
    global _LOCAL_NAMES
    if getattr(socket.socket.connect, _MARK, False):
        return
    _LOCAL_NAMES = _local_names()
    connect, connect_ex, getaddrinfo = socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo

    def guarded_connect(self, address):
        _check(address, self.family)
        return connect(self, address)

    def guarded_connect_ex(self, address):
        _check(address, self.family)
        return connect_ex(self, address)

    def guarded_getaddrinfo(host, *args, **kwargs):
        if not is_local(host) and not _is_ip(host):  # numeric addresses are checked at connect
            raise NetworkBlocked(f"network access blocked in tests: name lookup of {host!r}")
        return getaddrinfo(host, *args, **kwargs)

    for fn in (guarded_connect, guarded_connect_ex, guarded_getaddrinfo):
        setattr(fn, _MARK, True)
    socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo = guarded_connect, guarded_connect_ex, guarded_getaddrinfo


_LOCAL_NAMES: set[str] = set()
