"""Warning latency RSU -> onboard grounding -> agent subscription over DDS on loopback.

Measures, in one run and one process (single-threaded executor, UDPv4 on
loopback, an isolated ROS domain):
- warning path: wall time from the RSU node publishing a HazardNotice to the
  agent-side subscriber receiving the CooperativeWarning grounded from it
  (RSU -> grounding hop + gating/grounding/rendering + grounding -> agent hop);
  the grounding node runs with ``wait_for_sync: rsu`` so it grounds frame N as
  soon as the RSU's notice and ack for N are in, which is what a latency
  measurement needs (the session's lockstep adds whole frames on top by design);
- baseline: a raw rclpy ping-pong with the same message types (HazardNotice
  out, CooperativeWarning back), two hops through an echo node.
Prints p50/p99 of both and the p99 ratio (target: <= 2x). Runs in ~10 s.

    .venv/bin/python benchmarks/bench_warning_latency.py [--samples 2000]
"""

from __future__ import annotations

import argparse
import sys
import time

from lantern.ros.isolation import apply_isolation, claim_domain


def percentile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    k = min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))
    return s[k]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--warmup", type=int, default=30)
    args = ap.parse_args()
    lease = claim_domain()
    apply_isolation(lease.domain_id)

    import rclpy
    from nav_msgs.msg import Odometry
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.node import Node

    from lantern import topics
    from lantern.ros import lockstep, qos
    from lantern.ros.node import NodeSpec
    from lantern_msgs.msg import ActorState, ActorStateArray, CooperativeWarning, HazardNotice, ScenarioEvent
    from lantern_warning_server.grounding_node import GroundingNode
    from lantern_warning_server.rsu_node import RsuNode

    ctx = rclpy.Context()
    rclpy.init(context=ctx, domain_id=lease.domain_id, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    dt = 0.05
    dt_ns = lockstep.dt_to_ns(dt)
    try:
        specs = [
            NodeSpec(RsuNode, "bench_rsu", overrides={"use_sim_time": False, "rate_hz": 20.0}),
            NodeSpec(GroundingNode, "bench_grounding", overrides={"use_sim_time": False, "wait_for_sync": "rsu"}),
        ]
        nodes = [s.factory(s.name, cli_args=s.cli_args(), use_global_arguments=False, context=ctx) for s in specs]
        rsu, grounding = nodes
        h = Node("bench_harness", context=ctx)
        ping, echo = Node("bench_ping", context=ctx), Node("bench_echo", context=ctx)
        ex = SingleThreadedExecutor(context=ctx)
        for n in nodes + [h, ping, echo]:
            ex.add_node(n)

        sent: dict[int, float] = {}
        recv: dict[int, float] = {}
        real_publish = rsu.pub.publish

        def timed_publish(msg: HazardNotice) -> None:
            sent[lockstep.frame_of(msg.header.stamp, dt_ns)] = time.perf_counter()
            real_publish(msg)

        rsu.pub.publish = timed_publish

        fresh: set[int] = set()

        def on_warning(m: CooperativeWarning) -> None:
            f = lockstep.frame_of(m.header.stamp, dt_ns)
            recv[f] = time.perf_counter()
            if m.active and m.age == 0.0:  # grounded from the notice the RSU sent for this very frame
                fresh.add(f)

        h.create_subscription(CooperativeWarning, topics.WARNING, on_warning, qos.STATE)
        pub_odom = h.create_publisher(Odometry, topics.odometry("hero"), qos.STATE)
        pub_gt = h.create_publisher(ActorStateArray, topics.GROUND_TRUTH_ACTORS, qos.STATE)
        pub_ev = h.create_publisher(ScenarioEvent, topics.SCENARIO_EVENTS, qos.LATCHED)

        # raw ping-pong: same message types, two hops
        pp_sent: dict[int, float] = {}
        pp_recv: dict[int, float] = {}
        pub_ping = ping.create_publisher(HazardNotice, "/bench/ping", qos.STATE)
        pub_pong = echo.create_publisher(CooperativeWarning, "/bench/pong", qos.STATE)
        echo.create_subscription(HazardNotice, "/bench/ping", lambda m: pub_pong.publish(CooperativeWarning(header=m.header, source_notice_id=m.sequence)), qos.STATE)
        ping.create_subscription(CooperativeWarning, "/bench/pong", lambda m: pp_recv.__setitem__(m.source_notice_id, time.perf_counter()), qos.STATE)

        def spin_until(cond, timeout=5.0) -> None:  # noqa: ANN001
            end = time.monotonic() + timeout
            while not cond():
                if time.monotonic() > end:
                    raise RuntimeError("benchmark pipeline stalled")
                ex.spin_once(timeout_sec=0.01)

        spin_until(lambda: pub_odom.get_subscription_count() >= 2 and rsu.pub.get_subscription_count() >= 1
                   and grounding.pub.get_subscription_count() >= 1 and pub_ping.get_subscription_count() >= 1 and pub_pong.get_subscription_count() >= 1)
        ev = ScenarioEvent(type=ScenarioEvent.WARNING_ON, frame=1, sim_time=dt, other_actor="w")
        ev.header.stamp = lockstep.time_msg(dt_ns)
        pub_ev.publish(ev)
        spin_until(lambda: False if rsu.rsu.onset_frame() is None else True)
        total = args.samples + args.warmup
        t0 = time.monotonic()
        for i in range(total):  # interleave the two measurements so both see the same machine load
            f = i + 1
            stamp = lockstep.time_msg(f * dt_ns)
            gt = ActorStateArray()
            gt.header.stamp = stamp
            a = ActorState(id="w", role="hazard", actor_class="walker")
            a.pose.position.x, a.pose.position.y, a.pose.orientation.w = 40.0, 3.0, 1.0
            gt.actors = [a]
            pub_gt.publish(gt)
            odom = Odometry()
            odom.header.stamp = stamp
            odom.pose.pose.orientation.w = 1.0
            pub_odom.publish(odom)
            spin_until(lambda: f in recv)
            p = HazardNotice(sequence=f)
            pp_sent[f] = time.perf_counter()
            pub_ping.publish(p)
            spin_until(lambda: f in pp_recv)
        wall = time.monotonic() - t0
        keep = range(args.warmup + 1, total + 1)
        missing = [f for f in keep if f not in fresh]
        if missing:
            raise RuntimeError(f"{len(missing)} warnings were not grounded from their frame's notice (e.g. frame {missing[0]})")
        warn = [(recv[f] - sent[f]) * 1e3 for f in keep]
        raw = [(pp_recv[f] - pp_sent[f]) * 1e3 for f in keep]
        for n in nodes:
            n.destroy_node()
        for n in (h, ping, echo):
            n.destroy_node()
        ex.shutdown()
    finally:
        ctx.try_shutdown()
        lease.release()
    w50, w99, r50, r99 = percentile(warn, 50), percentile(warn, 99), percentile(raw, 50), percentile(raw, 99)
    print(f"samples: {len(warn)} (+{args.warmup} warm-up), wall {wall:.1f} s, one process, UDPv4 loopback")
    print(f"warning RSU->grounding->agent  p50 {w50:.3f} ms  p99 {w99:.3f} ms")
    print(f"raw rclpy ping-pong (2 hops)   p50 {r50:.3f} ms  p99 {r99:.3f} ms")
    ratio = w99 / r99
    print(f"p99 ratio warning/raw: {ratio:.2f}x (target <= 2.0x): {'PASS' if ratio <= 2.0 else 'FAIL'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
