"""Live view (`lantern run --foxglove PORT`): a real session streamed to a real WebSocket client.

The client speaks the Foxglove WebSocket protocol (subprotocol
``foxglove.sdk.v1``, the name foxglove-sdk 0.30.3 gives ``foxglove.websocket.v1``) with the ``websockets`` package: it reads
``serverInfo`` and ``advertise``, subscribes, and decodes the binary
message-data frames (opcode 1) with the schema each channel advertised: the
protobuf ones through their FileDescriptorSet (decoded here with a small
wire-format reader, so no schema is assumed), the JSON ones as JSON. The same
run is repeated without the live view: the ego trajectory must be identical.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
import math
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from lantern.paths import ROOT, config_file
from lantern.ros.params import field_names, load_yaml_params
from lantern_bringup.session import SessionConfig, session_nodes
from lantern_eval.bag_reader import iter_messages
from lantern_eval.live_view_node import LiveViewNode, PathAccumulator, RateGate, route_completion, run_end_line, warning_in_rep103, warning_line

websockets = pytest.importorskip("websockets")

ROUTE = "closed_pedestrian_emergence_0001_A"
FRAMES = 320  # a bound: this route ends (completed) at frame 284
#: foxglove-sdk 0.30.3 accepts only "foxglove.sdk.v1" (the successor name of "foxglove.websocket.v1":
#: same serverInfo / advertise / subscribe ops and opcode-1 message frames); measured: a client offering
#: only the old name gets HTTP 400 "Missing expected sec-websocket-protocol header". Offer both.
SUBPROTOCOLS = ["foxglove.sdk.v1", "foxglove.websocket.v1"]


# -- a minimal protobuf reader (wire format + descriptors), enough to check what the server sends --------

def _varint(b: bytes, i: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        c = b[i]
        i += 1
        value |= (c & 0x7F) << shift
        if not c & 0x80:
            return value, i
        shift += 7


def wire_fields(b: bytes) -> list[tuple[int, int, Any]]:
    """(field number, wire type, raw value) of every field in a protobuf message."""
    out, i = [], 0
    while i < len(b):
        key, i = _varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _varint(b, i)
        elif wt == 1:
            v, i = b[i : i + 8], i + 8
        elif wt == 5:
            v, i = b[i : i + 4], i + 4
        elif wt == 2:
            n, i = _varint(b, i)
            v, i = b[i : i + n], i + n
        else:
            raise ValueError(f"wire type {wt}")
        out.append((num, wt, v))
    return out


def descriptors(fds: bytes) -> dict[str, dict[int, tuple[str, int, str, bool]]]:
    """FileDescriptorSet -> {full message name: {field number: (name, type, type_name, repeated)}}."""
    msgs: dict[str, dict[int, tuple[str, int, str, bool]]] = {}
    for num, _, file_bytes in wire_fields(fds):
        if num != 1:
            continue
        ff = wire_fields(file_bytes)
        package = next((v.decode() for n, _, v in ff if n == 2), "")
        for n, _, msg_bytes in ff:
            if n != 4:
                continue
            mf = wire_fields(msg_bytes)
            name = next(v.decode() for k, _, v in mf if k == 1)
            fields = {}
            for k, _, fb in mf:
                if k == 2:
                    f = {a: v for a, _, v in wire_fields(fb)}
                    fields[f[3]] = (f[1].decode(), f.get(5, 0), f.get(6, b"").decode().lstrip("."), f.get(4) == 3)
            msgs[f"{package}.{name}" if package else name] = fields
    return msgs


def decode(b: bytes, type_name: str, descs: dict) -> dict[str, Any]:
    """A protobuf message -> dict by field name (types as in descriptor.proto)."""
    fields = descs[type_name]
    out: dict[str, Any] = {}
    for num, wt, raw in wire_fields(b):
        if num not in fields:
            continue
        name, typ, tname, repeated = fields[num]
        if typ in (11,):  # message
            v = decode(raw, tname, descs)
        elif typ == 9:
            v = raw.decode()
        elif typ == 12:
            v = raw
        elif typ == 1:
            v = struct.unpack("<d", raw)[0] if wt == 1 else [x[0] for x in struct.iter_unpack("<d", raw)]
        elif typ == 2:
            v = struct.unpack("<f", raw)[0]
        elif typ in (6, 7, 15, 16):  # fixed64, fixed32, sfixed32, sfixed64
            v = struct.unpack({6: "<Q", 7: "<I", 15: "<i", 16: "<q"}[typ], raw)[0]
        elif typ == 8:
            v = bool(raw)
        else:  # varint ints and enums
            v = raw
        if repeated:
            out.setdefault(name, []).append(v)
        else:
            out[name] = v
    return out


# -- the Foxglove WebSocket client ---------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def collect(port: int, deadline_s: float, want: set[str] | None = None) -> tuple[dict, dict[str, list]]:
    """Connect, subscribe to every advertised channel, decode messages until each topic in
    ``want`` has one (None: until the server closes at the run's end, or the deadline)."""
    uri = f"ws://127.0.0.1:{port}"
    t_end = time.monotonic() + deadline_s
    while True:  # the server comes up with the session
        try:
            ws = await websockets.connect(uri, subprotocols=SUBPROTOCOLS, max_size=None)
            break
        except OSError:
            if time.monotonic() > t_end:
                raise
            await asyncio.sleep(0.1)
    got: dict[str, list] = {}
    channels: dict[int, dict] = {}
    info: dict = {}
    async with ws:
        assert ws.subprotocol == "foxglove.sdk.v1"  # what the pinned server (foxglove-sdk 0.30.3) picks
        sub_of: dict[int, dict] = {}
        while time.monotonic() < t_end and not (want is not None and want <= set(got)):
            try:
                frame = await asyncio.wait_for(ws.recv(), timeout=max(0.1, t_end - time.monotonic()))
            except (TimeoutError, websockets.ConnectionClosed):  # the server stops when the run ends
                break
            if isinstance(frame, str):
                op = json.loads(frame)
                if op["op"] == "serverInfo":
                    info = op
                elif op["op"] == "advertise":
                    new = [c for c in op["channels"] if c["id"] not in channels]
                    for c in new:
                        channels[c["id"]] = c
                        sub_of[c["id"]] = c  # subscription id = channel id
                    if new:
                        await ws.send(json.dumps({"op": "subscribe", "subscriptions": [{"id": c["id"], "channelId": c["id"]} for c in new]}))
                continue
            assert frame[0] == 1, f"binary opcode {frame[0]}"  # message data
            sub_id, log_time = struct.unpack_from("<IQ", frame, 1)
            ch = sub_of[sub_id]
            payload = bytes(frame[13:])
            if ch["encoding"] == "protobuf":
                assert ch["schemaEncoding"] == "protobuf"
                msg = decode(payload, ch["schemaName"], descriptors(base64.b64decode(ch["schema"])))
            else:
                assert ch["encoding"] == "json"
                msg = json.loads(payload)
            got.setdefault(ch["topic"], []).append((ch["schemaName"], log_time, msg))
    return info, got


def trajectory(bag: Path) -> list[tuple]:
    out = []
    for _topic, _t, t_ns, m in iter_messages(bag, ["/carla/hero/odometry"]):
        p, v = m.pose.pose, m.twist.twist.linear
        out.append((t_ns, p.position.x, p.position.y, p.orientation.z, p.orientation.w, v.x, v.y))
    return out


def lantern_run(domain: int, bag: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "lantern_bringup.cli", "--domain-id", str(domain), "run", "--route", ROUTE, "--agent", "onboard",
            "--record", str(bag), "--camera", "--max-frames", str(FRAMES), *extra]


@pytest.mark.ros
def test_live_view_streams_typed_messages_and_leaves_the_loop_unchanged(tmp_path, ros_domain):
    port = free_port()
    live = subprocess.Popen(lantern_run(ros_domain, tmp_path / "live", "--foxglove", str(port)), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        info, got = asyncio.run(collect(port, deadline_s=120))
        out, err = live.communicate(timeout=180)
    finally:
        if live.poll() is None:
            live.kill()
    assert live.returncode == 0, out[-3000:] + err[-3000:]
    assert info.get("name", "").startswith("lantern")

    schema, _t, img = got["/camera"][0]
    assert schema == "foxglove.RawImage"
    assert (img["width"], img["height"], img["encoding"]) == (640, 320, "rgb8")
    assert img["step"] == 640 * 3 and len(img["data"]) == 640 * 320 * 3

    schema, log_time, pose = got["/ego/pose"][-1]
    assert schema == "foxglove.PoseInFrame" and pose["frame_id"] == "map"
    stamp = pose["timestamp"]
    assert log_time == stamp.get("seconds", 0) * 1_000_000_000 + stamp.get("nanos", 0)  # log time = sim time of the odometry
    assert 0 <= log_time <= FRAMES * 50_000_000 and log_time % 50_000_000 == 0  # a frame's stamp (dt 0.05 s)
    q = pose["pose"]["orientation"]
    assert math.isclose(sum(q.get(k, 0.0) ** 2 for k in "xyzw"), 1.0, rel_tol=1e-6)

    logs = [(schema, msg) for schema, _t, msg in got["/warning"]]
    assert all(schema == "foxglove.Log" and msg["name"] == "cooperative_warning" for schema, msg in logs)
    active = [msg for _, msg in logs if msg["message"].startswith("[pedestrian_emergence] ")]
    assert active and all(msg["level"] == 3 for msg in active)  # LogLevel.Warning
    assert any(msg["message"] == "no active warning" for _, msg in logs[logs.index(("foxglove.Log", active[-1])) :])  # and it ends
    spheres = [e for _, _t, u in got["/warning/marker"] for e in u.get("entities", []) if e.get("spheres")]
    assert spheres and spheres[0]["frame_id"] == "hero" and spheres[0]["texts"][0]["text"]
    x = spheres[0]["spheres"][0]["pose"]["position"]["x"]
    assert 5.0 < x < 60.0  # the hazard is ahead of the ego (Table 2 x forward)
    events = [msg["message"].split()[0] for _, _t, msg in got["/events"]]
    assert events.index("WARNING_ON") < events.index("EVENT_ON") < events.index("WARNING_OFF")
    assert events[-1] == "run"  # the run's end: "run <id> ended: COMPLETED ..."
    # the route completion the live view shows is the one `lantern run` prints (the eval node's record)
    printed = next(line.split()[-2] for line in out.splitlines() if line.strip().startswith("route progress "))
    last = got["/events"][-1][2]["message"]
    assert f"route {printed} %" in last, (printed, last)
    assert "ROUTE_END" in events and printed == "100.0"

    schema, _t, state = got["/ego/state"][-1]
    assert schema == "lantern.EgoState" and state["speed_mps"] >= 0.0 and state["sim_time"] >= 0.0

    schema, _t, scene = got["/actors"][-1]
    assert schema == "foxglove.SceneUpdate"
    assert scene["entities"] and all(e["cubes"] for e in scene["entities"])
    roles = {kv["value"] for e in scene["entities"] for kv in e["metadata"] if kv["key"] == "role"}
    assert "ego" in roles or "hazard" in roles

    # determinism: the same run without a live view drives the same trajectory, bit for bit
    r = subprocess.run(lantern_run(ros_domain, tmp_path / "plain"), capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    a, b = trajectory(tmp_path / "live"), trajectory(tmp_path / "plain")
    assert len(a) > 250  # the whole route, warning and hazard included
    assert a == b


def test_live_view_is_an_observer_not_a_sync_participant():
    decls = {d.name: d for d in session_nodes(SessionConfig(foxglove_port=9876))}
    assert decls["lantern_live_view"].overrides["port"] == 9876
    assert not decls["lantern_live_view"].ends_session
    assert "live_view" not in " ".join(decls["lantern_bridge"].overrides["sync_participants"])
    assert "lantern_live_view" not in {d.name for d in session_nodes(SessionConfig())}


def test_live_view_yaml_keys_are_declared():
    declared = field_names(LiveViewNode.Params)
    keys = set(load_yaml_params(config_file("live_view.yaml"), "lantern_live_view")) - {"use_sim_time"}
    assert keys == declared  # every parameter is in the file, and nothing else
    assert all(f.metadata.get("description") for f in dataclasses.fields(LiveViewNode.Params))
    assert yaml.safe_load(config_file("live_view.yaml").read_text())["lantern_live_view"]["ros__parameters"]["host"] == "127.0.0.1"


def test_rate_gate_drops_between_periods():
    g = RateGate(4.0)  # one per 0.25 s
    assert [g.ready(t) for t in (0.0, 0.1, 0.24, 0.25, 0.3, 0.5)] == [True, False, False, True, False, True]
    assert not RateGate(0.0).ready(100.0)  # 0 Hz: nothing (camera off)


def test_path_keeps_one_pose_per_spacing_and_caps_length():
    path = PathAccumulator(spacing=1.0, max_poses=3)
    kept = [path.add(x, 0.0, 0.0) for x in (0.0, 0.5, 0.99, 1.0, 1.5, 2.2, 3.2, 4.2)]
    assert kept == [True, False, False, True, False, True, True, True]
    assert [p[0] for p in path.points] == [2.2, 3.2, 4.2]  # oldest dropped first


def test_warning_position_and_text():
    assert warning_in_rep103(12.0, 3.0) == (12.0, -3.0)  # Table 2's y right -> REP 103's y left
    assert warning_line(False, "ignored", "f", 1.0, True) == "no active warning"
    assert warning_line(True, "Pedestrian ahead", "pedestrian_emergence", 23.456, True) == "[pedestrian_emergence] Pedestrian ahead (23.5 m)"
    assert warning_line(True, "Road works", "", float("nan"), True) == "[?] Road works"


def test_layout_file_names_the_live_view_channels():
    layout = json.loads((ROOT / "docs" / "foxglove_layout.json").read_text())
    text = json.dumps(layout)
    for topic in ("/camera", "/ego/state.speed_mps", "/actors", "/warning", "/events"):
        assert topic in text, topic
    kinds = {k.split("!")[0] for k in layout["configById"]}
    assert {"3D", "Image", "RosOut", "Plot"} <= kinds


def test_run_end_line_gives_route_completion_as_the_scorer_does():
    """1 once ROUTE_END was seen (the bridge's own fraction stops just short of the end), else the bridge's max progress / length."""
    from lantern_eval.datatypes import EgoSeries, FinalStatus
    from lantern_eval.scoring import route_completion as scorer_rc

    assert run_end_line("r", "COMPLETED", 12.0, route_completion(0.962, True), "") == "run r ended: COMPLETED at t=12.00 s, route 100.0 %"
    assert run_end_line("r", "COLLISION", 7.5, route_completion(0.4321, False), "collision") == "run r ended: COLLISION at t=7.50 s, route 43.2 % (collision)"

    class Tel:  # the three things scoring.route_completion reads
        def __init__(self, completion: float, end: bool, max_progress: float, length: float) -> None:
            import numpy as np

            self.status = FinalStatus(outcome=1, reason="", t=10.0, route_completion=completion, frame=200)
            z = np.zeros(2)
            self.ego = EgoSeries(np.array([0, 1]), z, z, z, z, z, np.array([0.0, max_progress]), "navigation_command", length)
            self._end = end

        def first(self, kind):  # noqa: ANN001, ANN202
            return type("E", (), {"t": 10.0})() if self._end else None

    for completion, end, max_p, length in ((0.962, True, 96.2, 100.0), (0.4321, False, 43.21, 100.0)):
        assert route_completion(completion, end) == pytest.approx(scorer_rc(Tel(completion, end, max_p, length))["value"])
