"""DENM adapter node: etsi_its_denm_msgs/DENM -> lantern_msgs/HazardNotice on /v2x/rsu/hazard.

Swaps the emulated RSU for a real V2X stack: etsi_its_conversion publishes
decoded DENMs on /etsi_its_conversion/denm/out; this node maps them
(``denm.DenmMapper``) and publishes HazardNotice, so the vehicle side is
unchanged. The etsi_its_messages packages are imported lazily: they are not
installable from PyPI, and everything else works without them.
"""

from __future__ import annotations

from dataclasses import dataclass

from lantern import keystore, session_binding, topics
from lantern.ros import qos
from lantern.ros.node import LanternNode, node_main
from lantern.ros.params import param
from lantern_msgs.msg import HazardNotice
from lantern_warning_server import auth, msgconv
from lantern_warning_server.adapters.denm import DenmConfig, DenmMapper
from lantern_warning_server.adapters.geodesy import GeodeticOrigin


def import_denm_type(variant: str):  # noqa: ANN201
    """The DENM message class, or a clear error naming the missing package."""
    pkg = "etsi_its_denm_ts_msgs" if variant == "ts" else "etsi_its_denm_msgs"
    try:
        module = __import__(f"{pkg}.msg", fromlist=["DENM"])
    except ImportError as e:
        raise RuntimeError(
            f"the DENM adapter needs the ROS 2 package {pkg} (ika-rwth-aachen/etsi_its_messages), "
            f"which is not installed: build it in your ROS 2 workspace and source it ({e})"
        ) from e
    return module.DENM


@dataclass
class DenmAdapterParams:
    input_topic: str = param("/etsi_its_conversion/denm/out", "Decoded DENMs from etsi_its_conversion.")
    output_topic: str = param(topics.HAZARD_NOTICE, "HazardNotice output (the RSU topic).")
    message_variant: str = param("v1", "'v1' (etsi_its_denm_msgs) or 'ts' (etsi_its_denm_ts_msgs).")
    origin_lat: float = param(0.0, "Geodetic origin of the map frame: latitude, deg.")
    origin_lon: float = param(0.0, "Geodetic origin of the map frame: longitude, deg.")
    origin_alt: float = param(0.0, "Geodetic origin of the map frame: ellipsoidal height, m.")
    map_yaw: float = param(0.0, "Angle of map +x from east, rad counter-clockwise (0: map = ENU).")
    time_offset: float = param(0.0, "s added to UTC stamps (0 when ROS time is UTC).")
    wrong_way_family: str = param("", "Family for wrongWayDriving (left_turn_wrong_way / right_turn_wrong_way); '' = generic wording.")
    sender_prefix: str = param("denm-", "Prefix of HazardNotice.sender_id before the station id.")
    session_nonce: str = param("", session_binding.PARAM_DOC)
    auth_key_file: str = param("", "Key store: sign notices with the key of their sender id ('' = the default store when it exists; `lantern keys add --sender denm-<id>`).")


class DenmAdapterNode(LanternNode):
    Params = DenmAdapterParams

    def __init__(self, name: str = "lantern_denm_adapter", **kwargs) -> None:
        super().__init__(name, **kwargs)
        p: DenmAdapterParams = self.p
        denm_type = import_denm_type(p.message_variant)
        self.mapper = DenmMapper(DenmConfig(
            GeodeticOrigin(p.origin_lat, p.origin_lon, p.origin_alt, p.map_yaw),
            round(p.time_offset * 1e9), p.wrong_way_family, p.sender_prefix,
        ))
        store = keystore.resolve(p.auth_key_file)
        keys = keystore.load_store(store, "the DENM adapter signs notices") if p.auth_key_file or store.exists() else {}
        # bound to the vehicle's session like the RSU emulator's: the radio stack has already checked the DENM's
        # absolute generation time (IEEE 1609.2 / TS 103 097); from here on a notice is this session's
        self.keys = session_binding.bound_keys(keys, p.session_nonce)
        self._unkeyed: set[str] = set()
        self.pub = self.create_publisher(HazardNotice, p.output_topic, qos.STATE)
        self.create_subscription(denm_type, p.input_topic, self._on_denm, qos.STATE)

    def _on_denm(self, msg) -> None:  # noqa: ANN001
        notice, reason = self.mapper.map(msg)
        if notice is None:
            self.get_logger().warn(f"DENM refused: {reason}", throttle_duration_sec=5.0)
            return
        key = self.keys.get(notice.sender_id)
        if key is None and notice.sender_id not in self._unkeyed:
            self._unkeyed.add(notice.sender_id)
            self.get_logger().warning(f"no key for {notice.sender_id} in the key store: its notices go out unsigned and an authenticating vehicle rejects them (lantern keys add --sender {notice.sender_id} --key hex:...)")
        self.pub.publish(msgconv.notice_to_msg(auth.signed(notice, key) if key else notice))


def main() -> None:
    node_main(DenmAdapterNode, "lantern_denm_adapter")
