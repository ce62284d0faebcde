"""Hold ROS domain 0 like a live lantern session does, until the test process exits (shared by the *_domain_in_use cases).

A fixed hold (it was 30 s) raced a slow suite: a later case that found the
earlier holder "busy" could start its run just as that holder let go.

Domain 0 because free leases never hand it out (they use 1..101): only an
explicit --domain-id 0 / ROS_DOMAIN_ID=0 can ask for it, so holding it here
never gets in the way of other tests.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HOLD = r"""
import ctypes, signal, sys, time
ctypes.CDLL("libc.so.6").prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG: never outlive the test process
from lantern.ros.isolation import DomainBusyError, lease_session
try:
    lease = lease_session(0)
except DomainBusyError:
    print("busy", flush=True)  # an earlier case's holder still has it: just as good
else:
    print("held", flush=True)
    time.sleep(1800)  # PR_SET_PDEATHSIG ends it with the test process
"""


def hold_domain_zero() -> None:
    p = subprocess.Popen([sys.executable, "-c", HOLD], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True)
    state = p.stdout.readline().strip()
    assert state in ("held", "busy"), state
