"""Per-run CARLA port leases: one run per server RPC port, a Traffic Manager port of its own.

Two concurrent runs ticking one synchronous CARLA server would advance each
other's world, and two Traffic Managers on one port are one TM: so each run
holds its server's RPC port exclusively and a free TM port, with the file-lock
mechanism of the DDS domain lease (``lantern.ros.isolation``: flock, holder's
pid written into the file, released on close or process death). A TM port
also has to be bindable on this host (another program may hold it): a port
conflict is an infrastructure failure (App. A: retried by the suite), never a
route result.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field

from lantern.ros.isolation import _describe, _try_lock, lock_holder

TM_PORT_BASE = 8000
TM_PORT_COUNT = 200


class CarlaPortBusyError(RuntimeError):
    """The run cannot have its CARLA ports (one line: which port, who holds it)."""


def _path(lock_dir: str, kind: str, port: int) -> str:
    return os.path.join(lock_dir, f"lantern-carla-{kind}-{port}.lock")


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@dataclass
class CarlaPortLease:
    rpc_port: int
    tm_port: int
    _fds: list[int] = field(default_factory=list)

    def release(self) -> None:
        for fd in reversed(self._fds):
            os.close(fd)
        self._fds = []

    def __enter__(self) -> CarlaPortLease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def lease_ports(rpc_port: int, tm_port: int | None = None, *, lock_dir: str = "/tmp", check_bind: bool = True) -> CarlaPortLease:
    """Hold ``rpc_port`` exclusively and a TM port (``tm_port``, else the first free of 8000..8199)."""
    fd = _try_lock(_path(lock_dir, "rpc", rpc_port))
    if fd is None:
        raise CarlaPortBusyError(f"CARLA RPC port {rpc_port} is in use by another lantern run, {_describe(lock_holder(_path(lock_dir, 'rpc', rpc_port)))}")
    lease = CarlaPortLease(rpc_port, 0, [fd])
    candidates = [tm_port] if tm_port is not None else [TM_PORT_BASE + i for i in range(TM_PORT_COUNT)]
    for port in candidates:
        if port == rpc_port or port == rpc_port + 1:  # the server's own streaming port is rpc + 1
            continue
        tfd = _try_lock(_path(lock_dir, "tm", port))
        if tfd is None:
            continue
        if check_bind and not _bindable(port):
            os.close(tfd)
            continue
        lease._fds.append(tfd)
        lease.tm_port = port
        return lease
    lease.release()
    what = f"Traffic Manager port {tm_port}" if tm_port is not None else f"a free Traffic Manager port in {TM_PORT_BASE}..{TM_PORT_BASE + TM_PORT_COUNT - 1}"
    raise CarlaPortBusyError(f"CARLA {what} is not available (held by another lantern run or bound by another program)")
