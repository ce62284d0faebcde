"""DDS isolation: the environment that keeps one session (or pytest worker) off the others.

Pure (no rclpy import): the CLI and tests set it before any DDS participant exists.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from lantern.paths import config_dir

#: Fast DDS leaves /dev/shm/fastdds_* behind when a process is killed. Measured here:
#: ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST makes rmw_fastrtps configure its own
#: transports, shared memory included, whatever FASTDDS_BUILTIN_TRANSPORTS says.
#: So the range is SYSTEM_DEFAULT (rmw leaves the middleware alone) and a Fast DDS
#: profile restricts the participant to UDPv4 on 127.0.0.1 with unicast initial
#: peers: localhost-only discovery, no shared memory.
FASTDDS_PROFILE = config_dir() / "fastdds_localhost_udp.xml"  # share/lantern/config on a colcon install
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


class DomainBusyError(RuntimeError):
    """A session cannot have the ROS domain it was given: another session or process holds it.

    The message is one line naming the domain, where the id came from and the holder,
    so ``lantern run`` / ``lantern doctor`` can print it as a usage error.
    """


class DomainLease:
    """An exclusively held ROS domain id (file locks in the temp dir), released on close.

    Two locks per domain id D (``lantern-ros-domain-D.lock`` and ``...D.session.lock``):

    - the *domain* lock says who owns D (a pytest process, a suite worker, a run
      that leased a free id). Its holder writes its pid into the file, so a
      process started by the holder (pytest starting ``lantern run --domain-id
      D``, a suite worker its runs) may use D: the domain is delegated to it.
    - the *session* lock says which closed-loop session (run, doctor) is live in
      D: at most one, whoever owns the domain. Two ``lantern run`` given the
      same id (``ROS_DOMAIN_ID`` exported in two shells, or two runs started by
      one pytest process) can never share a DDS graph; the second refuses.
    """

    def __init__(self, domain_id: int, handle, *, delegated_by: int | None = None) -> None:  # noqa: ANN001
        self.domain_id = domain_id
        self._handles = [handle] if handle is not None else []
        self.delegated_by = delegated_by  # pid of the ancestor that owns the domain (None: we own it)

    def add(self, handle) -> None:  # noqa: ANN001
        self._handles.append(handle)

    def release(self) -> None:
        for h in reversed(self._handles):
            os.close(h)
        self._handles = []

    def __enter__(self) -> DomainLease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _lock_path(lock_dir: str, domain_id: int, kind: str = "") -> str:
    return os.path.join(lock_dir, f"lantern-ros-domain-{domain_id}{'.' + kind if kind else ''}.lock")


def _try_lock(path: str) -> int | None:
    """Exclusive non-blocking flock on ``path``; writes our pid into it. None when held elsewhere.

    The file is never truncated before the lock is ours (a loser must not erase the
    holder's pid), and the descriptor is not inherited by exec'd children (PEP 446).
    """
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def lock_holder(path: str) -> int | None:
    """Pid written by the holder of a lock file (None: unknown, e.g. between its lock and its write)."""
    try:
        with open(path) as fh:
            text = fh.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def ancestors(pid: int | None = None) -> list[int]:
    """This process's parent, grandparent, ... (Linux /proc; [] where that is unavailable)."""
    out: list[int] = []
    cur = os.getpid() if pid is None else pid
    while cur > 1 and len(out) < 64:
        try:
            with open(f"/proc/{cur}/stat") as fh:
                stat = fh.read()
        except OSError:
            break
        cur = int(stat.rsplit(")", 1)[1].split()[1])  # field 4 (ppid); the name in () may hold spaces
        out.append(cur)
    return out


def _describe(pid: int | None) -> str:
    if pid is None:
        return "an unknown process"
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            argv = [a.decode(errors="replace") for a in fh.read().split(b"\0") if a]
    except OSError:
        return f"pid {pid}"
    cmd = " ".join(" ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(argv[:4])).split())  # one line
    return f"pid {pid} ({cmd[:80]})" if cmd else f"pid {pid}"


def claim_domain(prefer: int | None = None, lock_dir: str = "/tmp") -> DomainLease:
    """Own the first free domain id, starting at ``prefer`` (default: spread by pid).

    Free means nobody holds its domain lock; a session given an id explicitly holds
    that id's domain lock too (or runs under an ancestor that does), so it is never free.
    """
    start = (prefer if prefer is not None else os.getpid()) % MAX_DOMAIN_ID
    for i in range(MAX_DOMAIN_ID):
        dom = 1 + (start + i) % MAX_DOMAIN_ID
        fd = _try_lock(_lock_path(lock_dir, dom))
        if fd is not None:
            return DomainLease(dom, fd)
    raise RuntimeError(f"no free ROS domain id: all 1..{MAX_DOMAIN_ID} are held (stale sessions?)")


def lease_session(domain_id: int | None = None, *, source: str = "--domain-id", lock_dir: str = "/tmp") -> DomainLease:
    """The exclusive lease a closed-loop session (``lantern run``, ``lantern doctor``) holds on its domain.

    ``domain_id`` None: own a free id. An explicit id (``--domain-id``, or
    ``$ROS_DOMAIN_ID`` through the CLI's default; ``source`` says which, for the
    message): own it, or use it under the ancestor process that owns it (pytest,
    a suite worker); refuse when anyone else owns it. Either way the session
    lock of the id is taken exclusively, or the session refuses: a run never
    shares its DDS graph with another run, whatever the environment says.
    Raises DomainBusyError (one line) or ValueError (id out of range).
    """
    if domain_id is None:
        lease = claim_domain(lock_dir=lock_dir)
    else:
        if not 0 <= domain_id <= MAX_DOMAIN_ID:
            raise ValueError(f"ROS domain id {domain_id} (from {source}) out of range 0..{MAX_DOMAIN_ID}")
        path = _lock_path(lock_dir, domain_id)
        fd = _try_lock(path)
        if fd is not None:
            lease = DomainLease(domain_id, fd)
        else:
            holder = lock_holder(path)
            if holder is None or (holder != os.getpid() and holder not in ancestors()):
                raise DomainBusyError(f"ROS domain {domain_id} (from {source}) is leased by {_describe(holder)}; {_hint(source)}")
            lease = DomainLease(domain_id, None, delegated_by=holder)
    spath = _lock_path(lock_dir, lease.domain_id, "session")
    sfd = _try_lock(spath)
    if sfd is None:
        lease.release()
        raise DomainBusyError(f"ROS domain {lease.domain_id} (from {source}) already has a live lantern session, {_describe(lock_holder(spath))}; {_hint(source)}")
    lease.add(sfd)
    return lease


def _hint(source: str) -> str:
    if source.startswith("$"):
        return f"unset {source[1:]} (a free domain is then leased) or give another --domain-id"
    return "give another --domain-id, or none to lease a free domain"
