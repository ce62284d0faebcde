"""Embedded simulator speed: full 20 Hz steps per second on one core, and a ratio against highway-env.

A "step" here is what the bridge does per frame: ego dynamics + background
traffic + collisions/infractions + the visibility query for every actor +
the front camera render. The scene: a signalised 4-arm junction, ego
driving a left turn route, 6 background vehicles, a parked bus and a walker.
highway-env (if installed) runs its default highway scene with a handful of
vehicles at 20 Hz (simulation_frequency 20, policy_frequency 20) without
rendering: it has no perspective camera, so the ratio compares our full step
(with camera) against its dynamics-only step.

All configurations run in alternating slices (steps per wall second and per CPU
second are printed), so their ratios come from the same machine load. (The
renderer before its optimisation is commit 1f71094's; docs/perf.md keeps the
figures measured against it.)

Run:  OMP_NUM_THREADS=1 taskset -c 0 .venv/bin/python benchmarks/bench_world.py [--seconds 5] [--drive-only] [--session]
"""

from __future__ import annotations

import argparse
import math
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from lantern_bridge.world import SIZES, Actor, LayoutSpec, World  # noqa: E402


def _driver(w: World) -> tuple[float, float, float]:
    e = w.ego
    tx, ty, _ = w.route.point_at(w.monitor.progress + max(4.0, 0.9 * e.speed))
    ang = math.remainder(math.atan2(ty - e.y, tx - e.x) - e.yaw, 2 * math.pi)
    err = 7.0 - e.speed
    return (min(1.0, 0.5 * err), max(-1.0, min(1.0, -2.0 * ang)), 0.0) if err >= 0 else (0.0, -2.0 * ang, min(1.0, -0.5 * err))


def make_world(camera: tuple[int, int]) -> World:
    w = World(LayoutSpec("junction4", turn="left", traffic_light=True, seed=1), "light_rain", camera=camera, seed=1, background_vehicles=6)
    x, y, yaw = w.route.point_at(60.0)
    w.spawn(Actor("bus", "occluder", "vehicle", x + 1.0, y - 3.5, yaw, 0.0, SIZES["bus"], subtype="bus"))
    w.spawn(Actor("walker", "hazard", "walker", x + 8.0, y - 8.0, yaw, 0.0, SIZES["walker"]))
    return w


class _WorldStepper:
    """One bench configuration: a full step (dynamics, traffic, visibility of every actor, camera).

    The scene's ego hits a background car at frame ~350 and then stands (a crash stops it) until the
    90-s blocked timeout at frame ~2280: how much of a timed window is a standing ego depends on how
    many steps the machine does in it. ``episode`` (``--drive-only``) starts a fresh world after that
    many steps instead, between the timed slices, so every timed step is a driving one."""

    def __init__(self, camera: tuple[int, int] | None, episode: int | None = None) -> None:
        self.camera = camera
        self.episode = episode
        self.n = 0
        self.w = self._make()

    def _make(self) -> World:
        w = make_world(self.camera or (64, 32))
        if self.camera:
            w.render()  # paint the map texture once (not part of a step)
        return w

    def step(self) -> None:
        w = self.w
        w.step(*_driver(w))
        w.visible_ids()
        if self.camera:
            w.render()
        self.n += 1
        if w.last_result is not None and w.last_result.done:
            self.w = self._make()
            self.n = 0

    def between_slices(self) -> None:
        """Outside the timed slices: a fresh world once the episode is over (``--drive-only``)."""
        if self.episode is not None and self.n >= self.episode:
            self.w = self._make()
            self.n = 0


class _HighwayStepper:
    """highway-env's default highway scene, 8 vehicles, 20 Hz, no rendering (it has no perspective camera)."""

    def __init__(self) -> None:
        import gymnasium as gym
        import highway_env  # noqa: F401

        self.env = gym.make("highway-v0", config={"simulation_frequency": 20, "policy_frequency": 20, "vehicles_count": 8, "duration": 10_000, "offscreen_rendering": True})
        self.env.reset(seed=0)
        self.n = 0

    def step(self) -> None:
        _, _, term, trunc, _ = self.env.step(1)  # IDLE
        self.n += 1
        if term or trunc:
            self.env.reset(seed=self.n)


def bench_interleaved(steppers: dict[str, object], seconds: float, slice_steps: int = 25) -> dict[str, tuple[float, float]]:
    """Steps per wall second and per CPU second of each configuration, run in alternating slices.

    Interleaving matters on a shared machine: every configuration sees the same background load,
    so the ratios printed below come from the same conditions even when the absolute rates move.
    """
    wall = dict.fromkeys(steppers, 0.0)
    cpu = dict.fromkeys(steppers, 0.0)
    n = dict.fromkeys(steppers, 0)
    t_end = time.perf_counter() + seconds * len(steppers)
    while time.perf_counter() < t_end:
        for name, st in steppers.items():
            w0, c0 = time.perf_counter(), time.process_time()
            for _ in range(slice_steps):
                st.step()  # type: ignore[attr-defined]
            wall[name] += time.perf_counter() - w0
            cpu[name] += time.process_time() - c0
            n[name] += slice_steps
            getattr(st, "between_slices", lambda: None)()  # (not timed)
    return {k: (n[k] / wall[k], n[k] / max(cpu[k], 1e-9)) for k in steppers}


def bench_session(camera: tuple[int, int]) -> tuple[float, float, int]:
    """Real-time factor of a closed loop over DDS: bridge node + a trivial agent in one process.

    The agent answers every frame with a P speed controller (and acks as the
    only sync participant), so the figure is the simulator + ROS transport cost.
    Returns (real-time factor, wall s, frames).
    """
    import rclpy
    from nav_msgs.msg import Odometry
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.node import Node

    from lantern import topics
    from lantern.ros import lockstep, qos
    from lantern.ros.isolation import apply_isolation, claim_domain
    from lantern.ros.node import NodeSpec
    from lantern_bridge.bridge_node import BridgeNode
    from lantern_msgs.msg import VehicleControl

    lease = claim_domain()  # an exclusive ROS domain: never collide with tests running on this machine
    apply_isolation(lease.domain_id)
    ctx = rclpy.Context()
    rclpy.init(context=ctx, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    params = {"sync_participants": ["probe"], "camera_width": camera[0], "camera_height": camera[1], "fallback_scenario": "demo_walker", "background_vehicles": 4}
    bridge = BridgeNode("lantern_bridge", cli_args=NodeSpec(BridgeNode, "lantern_bridge", overrides=params).cli_args(), use_global_arguments=False, context=ctx)
    agent = Node("bench_agent", context=ctx)
    pub = agent.create_publisher(VehicleControl, topics.CONTROL, qos.STATE)
    acks = lockstep.ack_publisher(agent)
    acks.publish(lockstep.make_ack("probe", 0, lockstep.time_msg(0), ready=True))
    dt_ns = lockstep.dt_to_ns(0.05)

    def on_odom(m: Odometry) -> None:
        frame = lockstep.frame_of(m.header.stamp, dt_ns)
        err = 8.0 - m.twist.twist.linear.x
        c = VehicleControl(frame=frame, throttle=max(0.0, min(1.0, 0.5 * err)), brake=max(0.0, min(1.0, -0.5 * err)))
        c.header.stamp = m.header.stamp
        pub.publish(c)
        acks.publish(lockstep.make_ack("probe", frame, m.header.stamp))

    agent.create_subscription(Odometry, topics.odometry(), on_odom, qos.STATE)
    ex = SingleThreadedExecutor(context=ctx)
    ex.add_node(bridge)
    ex.add_node(agent)
    t_start = None
    try:
        while bridge.exit_code is None:
            ex.spin_once(timeout_sec=0.05)
            if t_start is None and bridge.started:
                t_start = time.perf_counter()
        wall = time.perf_counter() - (t_start or time.perf_counter())
        frames = bridge.frame
    finally:
        ex.shutdown()
        bridge.destroy_node()
        agent.destroy_node()
        ctx.try_shutdown()
        lease.release()
    return frames * 0.05 / max(wall, 1e-9), wall, frames


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=5.0, help="seconds per configuration (interleaved)")
    ap.add_argument("--session", action="store_true", help="also measure the real-time factor of a closed loop over DDS")
    ap.add_argument("--drive-only", action="store_true", help="time driving steps only: a fresh world every 300 steps, before the "
                    "ego's crash at ~350 (otherwise most of a long window is the ego standing after it)")
    args = ap.parse_args()
    episode = 300 if args.drive_only else None
    steppers: dict[str, object] = {
        "640x320": _WorldStepper((640, 320), episode),
        "320x160": _WorldStepper((320, 160), episode),
        "no camera": _WorldStepper(None, episode),
    }
    try:
        steppers["highway-env"] = _HighwayStepper()
    except ImportError:
        pass
    r = bench_interleaved(steppers, args.seconds)
    print(f"interleaved slices, {args.seconds:g} s per configuration{', driving steps only' if args.drive_only else ''}; steps per wall s (per CPU s)")
    print(f"lantern world, full step + 640x320 camera:   {r['640x320'][0]:7.1f} ({r['640x320'][1]:.1f}) steps/s (target >= 150)")
    print(f"lantern world, full step + 320x160 camera:   {r['320x160'][0]:7.1f} ({r['320x160'][1]:.1f}) steps/s")
    print(f"lantern world, full step, no camera:         {r['no camera'][0]:7.1f} ({r['no camera'][1]:.1f}) steps/s")
    if "highway-env" not in r:
        print("highway-env: not installed (pip install -r requirements-bench.txt), ratio skipped")
    else:
        he = r["highway-env"]
        print(f"highway-env highway-v0, 8 vehicles, 20 Hz, no render: {he[0]:7.1f} ({he[1]:.1f}) steps/s")
        print(f"ratio lantern(640x320 camera) / highway-env: {r['640x320'][0] / he[0]:5.2f} wall, {r['640x320'][1] / he[1]:5.2f} CPU (target >= 2.5)")
    if args.session:
        rtf, wall, frames = bench_session((640, 320))
        print(f"closed loop over DDS (bridge + trivial agent, 640x320 camera): {frames} frames in {wall:.2f} s wall = {rtf:.1f}x real time (target >= 5x)")


if __name__ == "__main__":
    main()
