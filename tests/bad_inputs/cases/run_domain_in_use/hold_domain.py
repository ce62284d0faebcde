"""Hold ROS domain 0 like a live lantern session does, for at most 30 s (shared by the *_domain_in_use cases).

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
    time.sleep(30)
"""


def hold_domain_zero() -> None:
    p = subprocess.Popen([sys.executable, "-c", HOLD], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True)
    state = p.stdout.readline().strip()
    assert state in ("held", "busy"), state
