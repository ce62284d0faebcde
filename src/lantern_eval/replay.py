"""`lantern replay BAG`: play a recorded session back onto DDS with `/clock` (``ros2 bag play`` is not installable here).

What it is for: re-scoring a bag with a live eval node, looking at a session in
Foxglove, or feeding a recorded session to a new node. It is a viewer / feeder,
not part of the closed loop, so it paces by wall clock (``--rate``); nothing it
publishes is acknowledged in lockstep.

Pure parts (no rclpy; tested without DDS):

- ``schedule``: when each message is due, in wall seconds after play start,
  from its log time, the rate, the start offset and looping;
- ``choose_qos``: the QoS a topic is republished with, from the profiles its
  publishers offered when it was recorded (``offered_qos_profiles``), the
  rule ``ros2 bag play`` applies, else the profile the project declares for it;
- ``make_plan``: every check of the inputs before anything is published (one
  ``InputError`` / ``BagError`` line naming the input).

``ReplayNode`` is the thin shell: publishers of raw CDR bytes, a steady
timer, ``/clock`` from the bag's timeline. ``replay_main`` is the CLI: it
checks the inputs, leases the ROS domain like every session
(``lantern.ros.isolation.lease_session``) and runs the node.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from lantern import topics as topic_names
from lantern.cli_args import EXIT_USAGE, ArgumentParser, number
from lantern.ros.isolation import MAX_DOMAIN_ID
from lantern.ros.node import LanternNode
from lantern.ros.params import param
from lantern_eval.errors import BagError, InputError

T = TypeVar("T")

NS = 1_000_000_000
#: History depth of a topic the project does not declare (rosbag2's default offer).
DEFAULT_DEPTH = 10
#: Most messages one timer tick publishes: the executor (and an in-process subscriber) gets a turn between bursts.
MAX_BURST = 256


@dataclass(frozen=True)
class Slot(Generic[T]):
    """One message of the playback: due ``due_s`` wall seconds after play start, in pass ``pass_no`` (0 first)."""

    due_s: float
    pass_no: int
    t_ns: int
    item: T


def schedule(read: Callable[[], Iterable[tuple[int, T]]], begin_ns: int, rate: float, loop: bool = False) -> Iterator[Slot[T]]:
    """Wall-clock due times of a bag's messages, in log-time order.

    ``read()`` yields (log time ns, item) in log-time order; it is called once
    per pass, so a loop re-reads the bag instead of holding it in memory.
    Messages before ``begin_ns`` (bag start + ``--start-offset``) are skipped.
    A message at log time t is due ``(t - begin_ns) / rate`` wall seconds
    after the pass starts; ``rate`` 0 means as fast as possible, in order
    (every message is due at once). With ``loop`` the next pass starts when the
    last message of the previous one is due (as ``ros2 bag play --loop``), and
    passes repeat until the consumer stops; a pass with no message ends it.
    """
    if rate < 0:
        raise ValueError(f"rate must be >= 0, got {rate}")
    base, pass_no = 0.0, 0
    while True:
        last: float | None = None
        for t_ns, item in read():
            if t_ns < begin_ns:
                continue
            due = base if rate == 0 else base + (t_ns - begin_ns) / NS / rate
            last = due
            yield Slot(due, pass_no, t_ns, item)
        if not loop or last is None:
            return
        base, pass_no = last, pass_no + 1


@dataclass(frozen=True)
class QosChoice:
    """The QoS a topic is republished with (policy names as rclpy spells them) and where it came from."""

    reliability: str  # RELIABLE | BEST_EFFORT
    durability: str  # TRANSIENT_LOCAL | VOLATILE
    depth: int
    source: str  # recorded | recorded_mixed | declared | default


_KNOWN = {"reliability": ("RELIABLE", "BEST_EFFORT"), "durability": ("TRANSIENT_LOCAL", "VOLATILE")}


def _policy_name(value: Any) -> str:
    return str(getattr(value, "name", value)).upper()


def choose_qos(offered: Sequence[Any], declared: Any | None) -> QosChoice:
    """The profile ``ros2 bag play`` offers for a topic, from its recorded publishers' offers.

    rosbag2's rule: when every recorded publisher offered the same reliability
    (durability), replay with it, else fall back to best effort (volatile), which
    every subscriber matches. Fast DDS records a remote publisher's history as
    unknown / depth 0, so the depth is the one the project declares for the topic
    (a latched topic keeps its 1000 for late joiners, a state topic its 200 for a
    slow reader), else rosbag2's 10. A bag without offers (older recorders, other
    tools) uses the declared profile, else reliable + volatile. ``offered`` are
    rosbags ``Qos``, ``declared`` an rclpy ``QoSProfile`` (duck-typed: this stays
    free of rclpy).
    """
    depth = int(declared.depth) if declared is not None and int(declared.depth) > 0 else DEFAULT_DEPTH
    if not offered:
        if declared is None:
            return QosChoice("RELIABLE", "VOLATILE", depth, "default")
        return QosChoice(_policy_name(declared.reliability), _policy_name(declared.durability), depth, "declared")
    rel = {_policy_name(q.reliability) for q in offered}
    dur = {_policy_name(q.durability) for q in offered}
    rel_ok = len(rel) == 1 and next(iter(rel)) in _KNOWN["reliability"]
    dur_ok = len(dur) == 1 and next(iter(dur)) in _KNOWN["durability"]
    return QosChoice(
        next(iter(rel)) if rel_ok else "BEST_EFFORT",
        next(iter(dur)) if dur_ok else "VOLATILE",
        depth,
        "recorded" if rel_ok and dur_ok else "recorded_mixed",
    )


@dataclass(frozen=True)
class TopicPlan:
    topic: str
    msgtype: str
    count: int  # messages at or after the start offset
    qos: QosChoice
    out_topic: str = ""  # where it is published: ``topic``, except lantern's control in a bag older than /lantern/control

    def __post_init__(self) -> None:
        if not self.out_topic:
            object.__setattr__(self, "out_topic", self.topic)


@dataclass
class ReplayPlan:
    """What a replay will publish, checked before anything is published."""

    bag: Path
    begin_ns: int
    end_ns: int
    topics: dict[str, TopicPlan] = field(default_factory=dict)

    @property
    def n_messages(self) -> int:
        return sum(t.count for t in self.topics.values())


def _connections(path: Path) -> list[Any]:
    from rosbags.rosbag2 import Reader

    try:
        with Reader(path) as reader:
            return list(reader.connections)
    except Exception as exc:  # rosbags raises several types; the caller needs one
        raise BagError(f"{path}: unreadable rosbag2 ({type(exc).__name__}: {exc})") from exc


def make_plan(bag: Path, *, start_offset_s: float = 0.0, topics: Sequence[str] = (), wait_for: Sequence[str] = (),
         declared: dict[str, Any] | None = None) -> ReplayPlan:
    """Check the inputs of a replay and say what it will publish; BagError / InputError name what is wrong.

    Reads the bag once, decoding every selected message with the project's
    typestore, so a corrupt bag is one line before anything is published, not a
    half-played session. The recorded ``/clock`` is not republished: the player
    publishes its own from the bag's timeline.
    """
    from lantern_eval.bag_reader import OpenBag

    declared = declared or {}
    bag = Path(bag)
    conns = _connections(bag) if bag.is_dir() and (bag / "metadata.yaml").is_file() else []
    with OpenBag(bag) as ob:
        s = ob.summary
        assert s is not None
        if not s.counts or not sum(s.counts.values()):
            raise InputError(f"{bag}: the bag has no messages")
        duration = (s.end_ns - s.start_ns) / NS
        if start_offset_s > duration:
            raise InputError(f"--start-offset {start_offset_s:g}: beyond the end of {bag} (its messages span {duration:.3f} s)")
        in_bag = sorted(t for t in s.counts if t != topic_names.CLOCK)
        unknown = [t for t in topics if t not in s.counts]
        if unknown:
            raise InputError(f"--topics {' '.join(unknown)}: not in {bag} (it has {', '.join(sorted(s.counts))})")
        selected = [t for t in in_bag if not topics or t in topics]
        missing_wait = [t for t in wait_for if t not in selected and t != topic_names.CLOCK]
        if missing_wait:
            raise InputError(f"--wait-for {' '.join(missing_wait)}: not a replayed topic of {bag}")
        begin_ns = s.start_ns + round(start_offset_s * NS)
        counts: dict[str, int] = dict.fromkeys(selected, 0)
        types: dict[str, str] = {}
        for topic, msgtype, t_ns, _msg in ob.messages(selected):  # decodes: a corrupt message is a BagError here
            types[topic] = msgtype
            if t_ns >= begin_ns:
                counts[topic] += 1
        if not sum(counts.values()):
            raise InputError(f"{bag}: no message of {', '.join(selected) or 'the selected topics (the recorded /clock is never replayed)'} at or after --start-offset {start_offset_s:g}")
    p = ReplayPlan(bag, begin_ns, s.end_ns)
    for topic in selected:
        if topic not in types:
            continue
        offered = [q for c in conns if c.topic == topic for q in (getattr(c.ext, "offered_qos_profiles", None) or [])]
        out = topic_names.current_topic(topic, types[topic])  # an old bag's control goes out where nodes listen today
        p.topics[topic] = TopicPlan(topic, types[topic], counts[topic], choose_qos(offered, declared.get(out)), out)
    return p


# --- node (thin shell) -----------------------------------------------------------------------------


@dataclass
class ReplayParams:
    bag: str = param("", "rosbag2 directory to play (mcap or sqlite3).")
    rate: float = param(1.0, "Playback speed: bag seconds per wall second (0 = as fast as possible, in order).", ge=0.0)
    start_offset_s: float = param(0.0, "Start this many bag seconds after the bag's first message.", ge=0.0)
    loop: bool = param(False, "Play the bag again from the start offset after its last message, until stopped.")
    topics: list[str] = param([], "Topics to play (empty = every topic of the bag but /clock).")
    wait_for: list[str] = param([], "Start only once each of these topics has a matched subscriber (volatile topics lose what is sent before).")
    clock: bool = param(True, "Publish /clock (rosgraph_msgs/Clock) from the bag's timeline, at each new message time.")
    ack_timeout_s: float = param(5.0, "Wall seconds to wait, after the last message, for reliable subscribers to acknowledge before exiting.", ge=0.0)
    tick_s: float = param(0.005, "Wall period of the playback timer (pacing resolution).", gt=0.0)


def _rclpy_qos(choice: QosChoice) -> Any:
    from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

    return QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=choice.depth,
                      reliability=ReliabilityPolicy[choice.reliability], durability=DurabilityPolicy[choice.durability])


class ReplayNode(LanternNode):
    """Publishes a bag's raw CDR messages at their scheduled wall times, and /clock from the bag's timeline."""

    Params = ReplayParams

    def __init__(self, name: str = "lantern_replay", *, plan: ReplayPlan | None = None, **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        from rclpy.clock import Clock, ClockType

        from lantern.ros import qos
        from lantern_eval.bag_reader import OpenBag
        from lantern_eval.recorder_node import contract_topics, ros_type

        p: ReplayParams = self.p
        declared = {t: prof for t, (_n, prof) in contract_topics("hero").items()}
        # the CLI hands over the plan it checked (the bag is read once for that); a bare node checks its own
        self.plan = plan if plan is not None else make_plan(Path(p.bag), start_offset_s=p.start_offset_s, topics=p.topics, wait_for=p.wait_for, declared=declared)
        self.pubs = {t: self.create_publisher(ros_type(tp.msgtype), tp.out_topic, _rclpy_qos(tp.qos)) for t, tp in self.plan.topics.items()}
        self.clock_pub = None
        if p.clock:
            from rosgraph_msgs.msg import Clock as ClockMsg

            self._clock_type = ClockMsg
            self.clock_pub = self.create_publisher(ClockMsg, topic_names.CLOCK, qos.CLOCK)
        selected = list(self.plan.topics)

        def read() -> Iterator[tuple[int, tuple[str, bytes]]]:
            with OpenBag(self.plan.bag) as ob:
                for topic, _type, t_ns, raw in ob.raw_messages(selected):
                    yield t_ns, (topic, raw)

        self._slots = schedule(read, self.plan.begin_ns, p.rate, p.loop)
        self._next: Slot | None = None
        self._t0: float | None = None
        self._last_clock_ns: int | None = None
        self.published = 0
        self.passes = 0
        self.error: str | None = None
        self.create_timer(p.tick_s, self._tick, clock=Clock(clock_type=ClockType.STEADY_TIME))

    def _ready(self) -> bool:
        for t in self.p.wait_for:
            pub = self.clock_pub if t == topic_names.CLOCK else self.pubs[t]
            if pub is None or pub.get_subscription_count() < 1:
                return False
        return True

    def _tick(self) -> None:
        if self.exit_code is not None:
            return
        if self._t0 is None:
            if not self._ready():
                return
            self._t0 = time.monotonic()
        now = time.monotonic() - self._t0
        try:
            for _ in range(MAX_BURST):
                if self._next is None:
                    self._next = next(self._slots, None)
                    if self._next is None:
                        self._finish()
                        return
                slot = self._next
                if slot.due_s > now:
                    return
                self._publish(slot)
                self._next = None
        except BagError as exc:  # the bag changed under us after the check: one line, usage exit code
            self.error = str(exc)
            self.request_exit(EXIT_USAGE)

    def _publish(self, slot: Slot) -> None:
        topic, raw = slot.item
        if self.clock_pub is not None and slot.t_ns != self._last_clock_ns:
            c = self._clock_type()
            c.clock.sec, c.clock.nanosec = divmod(slot.t_ns, NS)
            self.clock_pub.publish(c)
            self._last_clock_ns = slot.t_ns
        self.pubs[topic].publish(raw)
        self.published += 1
        self.passes = slot.pass_no + 1

    def _finish(self) -> None:
        """Last message sent: give reliable subscribers time to acknowledge it (a process that exits takes its unsent data along)."""
        deadline = time.monotonic() + self.p.ack_timeout_s
        for pub in [*self.pubs.values(), self.clock_pub]:
            left = deadline - time.monotonic()
            if pub is not None and left > 0:
                from rclpy.duration import Duration

                pub.wait_for_all_acked(Duration(nanoseconds=int(left * NS)))
        self.request_exit(0)


# --- CLI --------------------------------------------------------------------------------------------


def _domain_arg(a: Any) -> tuple[int | None, str]:
    import os

    if a.domain_id is not None:
        return a.domain_id, "--domain-id"
    value = os.environ.get("ROS_DOMAIN_ID", "")
    if value and not value.strip().isdigit():
        raise InputError(f"$ROS_DOMAIN_ID={value!r} is not a domain id (an integer); unset it to lease a free domain")
    return (int(value) if value else None), "$ROS_DOMAIN_ID"


def replay_main(argv: Sequence[str] | None = None) -> int:
    """``lantern replay BAG [--rate R] [--start-offset S] [--loop] [--topics T...] [--wait-for T...] [--domain-id D]``.

    Exit codes: 0 played to the end (or stopped with --loop by Ctrl-C: 130);
    2 a usage / input error (no such bag, corrupt bag, negative rate, offset
    beyond the end, unknown topic, domain in use), nothing published.
    """
    from lantern.paths import config_file
    from lantern.ros.isolation import DomainBusyError, apply_isolation, lease_session
    from lantern.ros.node import NodeSpec, run_session
    from lantern_eval.recorder_node import contract_topics

    ap = ArgumentParser(prog="lantern replay", description="Play a rosbag2 back onto DDS with /clock (a viewer / feeder, paced by wall clock).")
    ap.add_argument("bag", help="rosbag2 directory (mcap or sqlite3)")
    ap.add_argument("--rate", type=number(float, ge=0), default=1.0, help="bag seconds per wall second (default 1; 0 = as fast as possible, in order)")
    ap.add_argument("--start-offset", type=number(float, ge=0), default=0.0, metavar="S", help="start S bag seconds after the first message")
    ap.add_argument("--loop", action="store_true", help="play again from the start offset after the last message, until Ctrl-C")
    ap.add_argument("--topics", nargs="+", action="extend", default=[], metavar="TOPIC", help="play only these topics (default: all but the recorded /clock)")
    ap.add_argument("--wait-for", nargs="+", action="extend", default=[], metavar="TOPIC", help="start once each of these topics has a subscriber")
    ap.add_argument("--no-clock", action="store_true", help="do not publish /clock")
    ap.add_argument("--domain-id", type=number(int, ge=0, le=MAX_DOMAIN_ID), default=None, help="ROS domain (default: $ROS_DOMAIN_ID, else a free one is leased); held exclusively")
    a = ap.parse_args(argv)
    declared = {t: prof for t, (_n, prof) in contract_topics("hero").items()}
    try:
        domain, source = _domain_arg(a)
        p = make_plan(Path(a.bag), start_offset_s=a.start_offset, topics=a.topics, wait_for=a.wait_for, declared=declared)
    except (BagError, InputError) as exc:
        print(f"lantern replay: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        lease = lease_session(domain, source=source)
    except (DomainBusyError, ValueError) as exc:
        print(f"lantern replay: {exc}", file=sys.stderr)
        return EXIT_USAGE
    with lease:
        apply_isolation(lease.domain_id)
        print(f"replaying {p.bag}: {p.n_messages} message(s) on {len(p.topics)} topic(s), {(p.end_ns - p.begin_ns) / NS:.3f} bag s, "
              f"rate {a.rate:g}{' (as fast as possible)' if a.rate == 0 else ''}{', loop' if a.loop else ''}, ROS domain {lease.domain_id}")
        for tp in p.topics.values():
            print(f"  {tp.topic}{'' if tp.out_topic == tp.topic else ' -> ' + tp.out_topic} [{tp.msgtype}] {tp.count} msg, {tp.qos.reliability.lower()} {tp.qos.durability.lower()} depth {tp.qos.depth} ({tp.qos.source})")
        if a.wait_for:
            print(f"  waiting for subscribers of {' '.join(a.wait_for)}")
        sys.stdout.flush()
        node: list[ReplayNode] = []

        def make(name: str, **kw: Any) -> ReplayNode:
            node.append(ReplayNode(name, plan=p, **kw))
            return node[0]

        overrides = {"bag": str(p.bag), "rate": float(a.rate), "start_offset_s": float(a.start_offset), "loop": bool(a.loop),
                     "topics": list(a.topics), "wait_for": list(a.wait_for), "clock": not a.no_clock}
        if not a.topics:
            overrides.pop("topics")  # an empty list is the declared default (rclpy cannot type an empty override)
        if not a.wait_for:
            overrides.pop("wait_for")
        end = run_session([NodeSpec(make, "lantern_replay", [config_file("replay.yaml")], overrides, ends_session=True)])
    if node and node[0].error:
        print(f"lantern replay: {node[0].error}", file=sys.stderr)
        return EXIT_USAGE
    if node:
        print(f"replayed {node[0].published} message(s) in {node[0].passes} pass(es)")
    return end.code
