"""carla_bridge adapter node: lantern's graph <-> an external carla-ros-bridge.

Why it exists: carla-ros-bridge owns ``/carla/<role>/vehicle_control_cmd``
with ``carla_msgs/CarlaEgoVehicleControl``, and reports the ego's status,
collisions, lane invasions and the world's objects in carla_msgs /
derived_object_msgs types. Lantern's agent publishes its lockstep
``lantern_msgs/VehicleControl`` on ``/lantern/control`` and lantern's scorer
reads ScenarioEvents and ActorStates, so this node translates both ways
(``mapping``), nothing more. The bridge's sensor topics (odometry,
speedometer, camera) are already in standard types and names the agent reads
unchanged (docs/carla_docker.md).

carla_msgs and derived_object_msgs are imported lazily: they are built from
source next to carla-ros-bridge (docker/), are not on PyPI, and nothing else
in lantern needs them. Without them the node refuses to start with one line
naming what to build.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lantern import topics
from lantern.ros import lockstep, qos
from lantern.ros.node import LanternNode, node_main
from lantern.ros.params import param
from lantern_bridge.carla_bridge import mapping
from lantern_msgs.msg import ActorState, ActorStateArray, ScenarioEvent, VehicleControl

#: Where the adapter republishes the control the server applied (CarlaEgoVehicleStatus.control).
APPLIED_CONTROL = "/lantern/carla/applied_control"
#: carla-ros-bridge's object list (the ``sensor.pseudo.objects`` with id ``objects``).
CARLA_OBJECTS = "/carla/objects"


class MissingBridgeMessages(RuntimeError):
    """carla_msgs / derived_object_msgs are not importable."""


def import_bridge_types() -> dict[str, Any]:
    """The real bridge's message classes, or one clear error naming what to build and source."""
    try:
        from carla_msgs.msg import (  # type: ignore[import-not-found]
            CarlaCollisionEvent, CarlaEgoVehicleControl, CarlaEgoVehicleInfo, CarlaEgoVehicleStatus, CarlaLaneInvasionEvent,
        )
        from derived_object_msgs.msg import ObjectArray  # type: ignore[import-not-found]
    except ImportError as e:
        raise MissingBridgeMessages(
            "the carla_bridge adapter needs the ROS 2 packages carla_msgs (carla-simulator/ros-carla-msgs) and "
            f"derived_object_msgs (astuff_sensor_msgs): build them in your workspace and source it, or use docker/ ({e})"
        ) from e
    return {
        "control": CarlaEgoVehicleControl, "status": CarlaEgoVehicleStatus, "info": CarlaEgoVehicleInfo,
        "collision": CarlaCollisionEvent, "lane_invasion": CarlaLaneInvasionEvent, "objects": ObjectArray,
    }


@dataclass
class CarlaBridgeAdapterParams:
    role_name: str = param("hero", "The ego's role_name in carla-ros-bridge (its topics are /carla/<role_name>/...).")
    fixed_delta_seconds: float = param(0.05, "Simulation step, s (frame numbers from the bridge's stamps).", gt=0.0)
    control_topic: str = param(topics.CONTROL, "lantern_msgs/VehicleControl in (the agent's lockstep control).")
    objects_topic: str = param(CARLA_OBJECTS, "derived_object_msgs/ObjectArray in.")
    publish_actors: bool = param(True, "Republish /carla/objects as ActorStateArray on actors_topic (off when lantern's own bridge publishes ground truth).")
    actors_topic: str = param(topics.GROUND_TRUTH_ACTORS, "ActorStateArray out (privileged ground truth).")
    publish_events: bool = param(True, "Republish collisions and lane invasions as ScenarioEvents on events_topic (off when lantern's own bridge reports them).")
    events_topic: str = param(topics.SCENARIO_EVENTS, "ScenarioEvent out.")
    applied_control_topic: str = param(APPLIED_CONTROL, "VehicleControl out: the control the server applied (vehicle_status).")
    collision_repeat_s: float = param(5.0, "s without contact before the same actor counts as a new collision (simulation time).", ge=0.0)
    route_id: str = param("", "route_id written into the ScenarioEvents.")


class CarlaBridgeAdapterNode(LanternNode):
    Params = CarlaBridgeAdapterParams

    def __init__(self, name: str = "lantern_carla_bridge_adapter", **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        p: CarlaBridgeAdapterParams = self.p
        self.types = import_bridge_types()
        self.dt_ns = lockstep.dt_to_ns(p.fixed_delta_seconds)
        self.collisions = mapping.CollisionReporter(repeat_s=p.collision_repeat_s)
        self.ego_id: int | None = None
        self.ego_speed = 0.0
        self.classes: dict[int, str] = {}
        rn = p.role_name
        self.pub_cmd = self.create_publisher(self.types["control"], topics.carla_vehicle_control_cmd(rn), qos.STATE)
        self.pub_applied = self.create_publisher(VehicleControl, p.applied_control_topic, qos.STATE)
        self.pub_actors = self.create_publisher(ActorStateArray, p.actors_topic, qos.STATE) if p.publish_actors else None
        self.pub_events = self.create_publisher(ScenarioEvent, p.events_topic, qos.LATCHED) if p.publish_events else None
        self.create_subscription(VehicleControl, p.control_topic, self._on_control, qos.STATE)
        self.create_subscription(self.types["status"], topics.ego(rn, "vehicle_status"), self._on_status, qos.STATE)
        self.create_subscription(self.types["info"], topics.ego(rn, "vehicle_info"), self._on_info, qos.LATCHED)
        self.create_subscription(self.types["collision"], topics.ego(rn, "collision"), self._on_collision, qos.STATE)
        self.create_subscription(self.types["lane_invasion"], topics.ego(rn, "lane_invasion"), self._on_lane_invasion, qos.STATE)
        self.create_subscription(self.types["objects"], p.objects_topic, self._on_objects, qos.STATE)

    def _on_control(self, msg: VehicleControl) -> None:
        self.pub_cmd.publish(mapping.control_to_carla(msg, self.types["control"]()))

    def _on_info(self, msg: Any) -> None:
        self.ego_id = int(msg.id)

    def _on_status(self, msg: Any) -> None:
        self.ego_speed = float(msg.velocity)
        self.pub_applied.publish(mapping.applied_control(msg, VehicleControl(), self.dt_ns))

    def _on_objects(self, msg: Any) -> None:
        self.classes = {int(o.id): mapping.actor_class_of(o) for o in msg.objects}
        if self.pub_actors is None:
            return
        out = ActorStateArray()
        out.header.stamp, out.header.frame_id = msg.header.stamp, topics.MAP_FRAME
        for a in mapping.actors_of(msg, self.ego_id, self.p.role_name):
            s = ActorState(id=a.id, role=a.role, actor_class=a.actor_class)
            s.pose.position.x, s.pose.position.y, s.pose.position.z = a.position
            o = s.pose.orientation
            o.x, o.y, o.z, o.w = a.orientation
            s.twist.linear.x, s.twist.linear.y, s.twist.linear.z = a.linear
            s.twist.angular.x, s.twist.angular.y, s.twist.angular.z = a.angular
            s.extent.x, s.extent.y, s.extent.z = a.extent
            out.actors.append(s)
        self.pub_actors.publish(out)

    def _on_collision(self, msg: Any) -> None:
        self._publish_event(self.collisions.event(msg, self.dt_ns, self.ego_speed, self.classes, self.ego_id))

    def _on_lane_invasion(self, msg: Any) -> None:
        self._publish_event(mapping.lane_invasion_event(msg, self.dt_ns))

    def _publish_event(self, ev: mapping.EventFields | None) -> None:
        if ev is None or self.pub_events is None:
            return
        m = ScenarioEvent(type=ev.type, frame=ev.frame, sim_time=ev.stamp_ns / 1e9, route_distance=-1.0,  # route distance: unknown here
                          route_id=self.p.route_id, detail=ev.detail, other_actor=ev.other_actor)
        m.header.stamp, m.header.frame_id = lockstep.time_msg(ev.stamp_ns), topics.MAP_FRAME
        self.pub_events.publish(m)


def main() -> None:
    """Console script: a missing carla_msgs is the user's setup, said in one line (exit 2) before ROS starts."""
    import sys

    try:
        import_bridge_types()
    except MissingBridgeMessages as exc:
        print(f"[lantern] lantern-carla-bridge-adapter: {exc}", file=sys.stderr)
        sys.exit(2)
    node_main(CarlaBridgeAdapterNode, "lantern_carla_bridge_adapter")
