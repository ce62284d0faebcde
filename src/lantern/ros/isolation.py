"""DDS isolation: the environment that keeps one session (or pytest worker) off the others.

Pure (no rclpy import): the CLI and tests set it before any DDS participant exists.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

#: Fast DDS leaves /dev/shm/fastdds_* behind when a process is killed. Measured here:
#: ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST makes rmw_fastrtps configure its own
#: transports, shared memory included, whatever FASTDDS_BUILTIN_TRANSPORTS says.
#: So the range is SYSTEM_DEFAULT (rmw leaves the middleware alone) and a Fast DDS
#: profile restricts the participant to UDPv4 on 127.0.0.1 with unicast initial
#: peers: localhost-only discovery, no shared memory.
FASTDDS_PROFILE = Path(__file__).resolve().parents[3] / "config" / "fastdds_localhost_udp.xml"
BASE_ENV: Mapping[str, str] = {
    "RMW_IMPLEMENTATION": "rmw_fastrtps_cpp",
    "ROS_AUTOMATIC_DISCOVERY_RANGE": "SYSTEM_DEFAULT",
    "FASTDDS_DEFAULT_PROFILES_FILE": str(FASTDDS_PROFILE),
    "FASTDDS_BUILTIN_TRANSPORTS": "UDPv4",
}

#: ROS domain ids valid for UDP port mapping on Linux are 0..101 (and 215..232).
MAX_DOMAIN_ID = 101


def isolated_env(domain_id: int, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment for a process that must only see peers in ``domain_id`` on this host."""
    if not 0 <= domain_id <= MAX_DOMAIN_ID:
        raise ValueError(f"ROS domain id {domain_id} out of range 0..{MAX_DOMAIN_ID}")
    env = dict(os.environ if base is None else base)
    env.update(BASE_ENV)
    env["ROS_DOMAIN_ID"] = str(domain_id)
    env.pop("ROS_LOCALHOST_ONLY", None)  # deprecated; conflicts with the discovery range
    return env


def apply_isolation(domain_id: int) -> None:
    """Set the isolation variables in this process (before rclpy.init)."""
    os.environ.update(isolated_env(domain_id))
    os.environ.pop("ROS_LOCALHOST_ONLY", None)


class DomainLease:
    """An exclusively held ROS domain id (file lock in the temp dir), released on close.

    Concurrent sessions, suite workers and pytest workers on one machine each
    hold one, so two DDS graphs never share a domain.
    """

    def __init__(self, domain_id: int, handle) -> None:  # noqa: ANN001
        self.domain_id = domain_id
        self._handle = handle

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __enter__(self) -> DomainLease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def claim_domain(prefer: int | None = None, lock_dir: str = "/tmp") -> DomainLease:
    """Take the first free domain id, starting at ``prefer`` (default: spread by pid)."""
    import fcntl

    start = (prefer if prefer is not None else os.getpid()) % MAX_DOMAIN_ID
    for i in range(MAX_DOMAIN_ID):
        dom = 1 + (start + i) % MAX_DOMAIN_ID
        fh = open(os.path.join(lock_dir, f"lantern-ros-domain-{dom}.lock"), "w")  # noqa: SIM115 - held until release
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.close()
            continue
        return DomainLease(dom, fh)
    raise RuntimeError(f"no free ROS domain id: all 1..{MAX_DOMAIN_ID} are held (stale sessions?)")
