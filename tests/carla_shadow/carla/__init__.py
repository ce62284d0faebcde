"""Test-only: ``import carla`` in a process whose PYTHONPATH starts with ``tests/carla_shadow`` gets the fake.

The real ``carla`` 0.9.16 client is installed in the venv (API conformance
test), so a ``lantern run`` subprocess would import it and try to reach a
server. Putting this directory first on PYTHONPATH, in that test's
environment only, makes ``import carla`` return ``tests/fake_carla.py``
instead (the module replaces itself in ``sys.modules``, which the import
system honours). Knobs, from the environment of the run:

* ``LANTERN_FAKE_CARLA_CRASH_AFTER=N``: the server dies N ticks after the
  first connection (App. A crash injection: every later RPC times out);
* ``LANTERN_FAKE_CARLA_STATE=FILE``: at exit, the fake server's state as JSON
  (settings, actors left, Traffic Managers) so the test can check that the run
  left the server as it found it; an existing directory gets one ``<pid>.json``
  per process (a suite's runs).
"""

from __future__ import annotations

import atexit
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
try:
    import fake_carla
finally:
    sys.path.pop(0)

_crash = os.environ.get("LANTERN_FAKE_CARLA_CRASH_AFTER")
if _crash:
    fake_carla.server().crash_at_frame = fake_carla.server().world.get_snapshot().frame + int(_crash)

_state = os.environ.get("LANTERN_FAKE_CARLA_STATE")
if _state:

    def _dump(path: str = _state) -> None:
        srv = fake_carla.server()
        target = Path(path) / f"{os.getpid()}.json" if Path(path).is_dir() else Path(path)
        target.write_text(json.dumps({
            "synchronous_mode": srv.settings.synchronous_mode, "fixed_delta_seconds": srv.settings.fixed_delta_seconds,
            "actors_left": sorted(a.type_id for a in srv.world._actors.values()), "frame": srv.world.get_snapshot().frame,
            "traffic_managers": {str(p): {"synchronous": tm.synchronous, "hybrid_physics": tm.hybrid_physics, "seed": tm.seed} for p, tm in srv.traffic_managers.items()},
        }, sort_keys=True))

    atexit.register(_dump)

sys.modules[__name__] = fake_carla
