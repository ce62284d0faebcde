"""Agent node (walking skeleton): answers every frame with a VehicleControl.

Waits until both the odometry and the cooperative warning of frame N are in,
then publishes the Trajectory and the VehicleControl for N: the answer is a
function of frame N's inputs alone, whatever the machine's speed. The
skeleton drives at a constant target speed; backends replace the planner.
"""

from __future__ import annotations

from dataclasses import dataclass

from nav_msgs.msg import Odometry

from lantern import topics
from lantern.ros import lockstep, qos
from lantern.ros.node import LanternNode, node_main
from lantern.ros.params import param
from lantern_msgs.msg import CooperativeWarning, Trajectory, VehicleControl


@dataclass
class AgentParams:
    role_name: str = param("hero", "Ego role name (ego topics).")
    fixed_delta_seconds: float = param(0.05, "Simulation step.")
    target_speed: float = param(8.0, "Skeleton cruise speed, m/s.")
    speed_gain: float = param(0.5, "Proportional gain from speed error (m/s) to pedal.")
    wait_for_warning: bool = param(True, "Answer a frame only once its CooperativeWarning is in (deterministic).")


class AgentNode(LanternNode):
    Params = AgentParams

    def __init__(self, name: str = "lantern_agent", **kwargs) -> None:
        super().__init__(name, **kwargs)
        self.dt_ns = lockstep.dt_to_ns(self.p.fixed_delta_seconds)
        self.odom: dict[int, Odometry] = {}
        self.warn: dict[int, CooperativeWarning] = {}
        self.answered = -1
        rn = self.p.role_name
        self.pub_ctrl = self.create_publisher(VehicleControl, topics.vehicle_control(rn), qos.STATE)
        self.pub_traj = self.create_publisher(Trajectory, topics.TRAJECTORY, qos.STATE)
        self.create_subscription(Odometry, topics.odometry(rn), self._on_odom, qos.STATE)
        self.create_subscription(CooperativeWarning, topics.WARNING, self._on_warning, qos.STATE)
        self.exit_on_run_end()

    def _on_odom(self, msg: Odometry) -> None:
        self.odom[lockstep.frame_of(msg.header.stamp, self.dt_ns)] = msg
        self._try_answer()

    def _on_warning(self, msg: CooperativeWarning) -> None:
        self.warn[lockstep.frame_of(msg.header.stamp, self.dt_ns)] = msg
        self._try_answer()

    def _try_answer(self) -> None:
        for frame in sorted(self.odom):
            if frame <= self.answered:
                # retransmission of a frame already answered: answer it again (the first answer may be lost)
                self._publish_control(frame, self._last_ctrl) if frame == self.answered else None
                del self.odom[frame]
                self.warn.pop(frame, None)
                continue
            if self.p.wait_for_warning and frame not in self.warn:
                return
            odom = self.odom.pop(frame)
            warning = self.warn.pop(frame, None)
            self._answer(frame, odom, warning)

    def _answer(self, frame: int, odom: Odometry, warning: CooperativeWarning | None) -> None:
        speed = odom.twist.twist.linear.x
        err = self.p.target_speed - speed
        pedal = max(-1.0, min(1.0, self.p.speed_gain * err))
        throttle, brake = (pedal, 0.0) if pedal >= 0 else (0.0, -pedal)
        traj = Trajectory(time_step=0.25, backend="skeleton")
        traj.header.stamp, traj.header.frame_id = odom.header.stamp, self.p.role_name
        traj.x = [self.p.target_speed * 0.25 * (i + 1) for i in range(10)]
        traj.y = [0.0] * 10
        traj.target_speed = [float(self.p.target_speed)] * 10
        if warning is not None and warning.active:
            traj.warning_used, traj.warning_notice_id, traj.warning_age = True, warning.source_notice_id, warning.age
        else:
            traj.warning_age = -1.0
        self.pub_traj.publish(traj)
        self._last_ctrl = (float(throttle), float(brake), 0.0)
        self.answered = frame
        self._publish_control(frame, self._last_ctrl)

    def _publish_control(self, frame: int, ctrl: tuple[float, float, float]) -> None:
        c = VehicleControl(frame=frame, throttle=ctrl[0], brake=ctrl[1], steer=ctrl[2])
        c.header.stamp, c.header.frame_id = lockstep.time_msg(frame * self.dt_ns), self.p.role_name
        self.pub_ctrl.publish(c)


def main() -> None:
    node_main(AgentNode, "lantern_agent")
