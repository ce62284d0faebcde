"""rosbags typestore that knows ROS 2 Kilted's standard types plus lantern_msgs.

The lantern_msgs definitions are read from the installed interface package
(share/lantern_msgs/msg/*.msg), falling back to the source tree, so the bag's
message definitions and type hashes are exactly those of the built package.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from rosbags.typesys import Stores, get_types_from_msg, get_typestore
from rosbags.typesys.store import Typestore

from lantern.paths import ROOT


def lantern_msg_dir() -> Path:
    try:
        from ament_index_python.packages import get_package_share_directory

        d = Path(get_package_share_directory("lantern_msgs")) / "msg"
        if d.is_dir():
            return d
    except Exception:  # noqa: BLE001 - not installed: use the source tree
        pass
    return ROOT / "msg" / "msg"


@lru_cache(maxsize=1)
def typestore() -> Typestore:
    store = get_typestore(Stores.ROS2_KILTED)
    types: dict = {}
    for f in sorted(lantern_msg_dir().glob("*.msg")):
        types.update(get_types_from_msg(f.read_text(), f"lantern_msgs/msg/{f.stem}"))
    store.register(types)
    return store
