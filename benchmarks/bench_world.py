"""Embedded simulator speed: full 20 Hz steps per second on one core, and a ratio against highway-env.

A "step" here is what the bridge does per frame: ego dynamics + background
traffic + collisions/infractions + the visibility query for every actor +
the front camera render. The scene: a signalised 4-arm junction, ego
driving a left turn route, 6 background vehicles, a parked bus and a walker.
highway-env (if installed) runs its default highway scene with a handful of
vehicles at 20 Hz (simulation_frequency 20, policy_frequency 20) without
rendering: it has no perspective camera, so the ratio compares our full step
(with camera) against its dynamics-only step.

Run:  OMP_NUM_THREADS=1 taskset -c 0 .venv/bin/python benchmarks/bench_world.py [--seconds 5] [--session]
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


def bench(camera: tuple[int, int] | None, seconds: float) -> float:
    w = make_world(camera or (64, 32))
    if camera:
        w.render()  # paint the map texture once (not part of a step)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        w.step(*_driver(w))
        w.visible_ids()
        if camera:
            w.render()
        n += 1
        if w.last_result is not None and w.last_result.done:
            w = make_world(camera or (64, 32))
            if camera:
                w.render()
    return n / (time.perf_counter() - t0)


def bench_highway_env(seconds: float) -> float | None:
    try:
        import gymnasium as gym
        import highway_env  # noqa: F401
    except ImportError:
        return None
    env = gym.make("highway-v0", config={"simulation_frequency": 20, "policy_frequency": 20, "vehicles_count": 8, "duration": 10_000, "offscreen_rendering": True})
    env.reset(seed=0)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        _, _, term, trunc, _ = env.step(1)  # IDLE
        n += 1
        if term or trunc:
            env.reset(seed=n)
    env.close()
    return n / (time.perf_counter() - t0)


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
    pub = agent.create_publisher(VehicleControl, topics.vehicle_control(), qos.STATE)
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
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--session", action="store_true", help="also measure the real-time factor of a closed loop over DDS")
    args = ap.parse_args()
    r640 = bench((640, 320), args.seconds)
    r320 = bench((320, 160), args.seconds)
    r0 = bench(None, args.seconds)
    print(f"lantern world, full step + 640x320 camera: {r640:7.1f} steps/s (target >= 150)")
    print(f"lantern world, full step + 320x160 camera: {r320:7.1f} steps/s")
    print(f"lantern world, full step, no camera:       {r0:7.1f} steps/s")
    he = bench_highway_env(args.seconds)
    if he is None:
        print("highway-env: not installed (pip install highway-env==1.12.1), ratio skipped")
    else:
        print(f"highway-env highway-v0, 8 vehicles, 20 Hz, no render: {he:7.1f} steps/s")
        print(f"ratio lantern(640x320 camera) / highway-env: {r640 / he:5.2f} (target >= 1.0)")
    if args.session:
        rtf, wall, frames = bench_session((640, 320))
        print(f"closed loop over DDS (bridge + trivial agent, 640x320 camera): {frames} frames in {wall:.2f} s wall = {rtf:.1f}x real time (target >= 5x)")


if __name__ == "__main__":
    main()
