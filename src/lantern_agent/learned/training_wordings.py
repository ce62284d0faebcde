"""Alternative wordings of the six hazard warnings, for training the learned policy only.

Why: while a warning is active, the training rows give the policy exactly one
fixed sentence per hazard family (the family's warning text with the grounded
position filled in). Trained on those alone, the policy learns to recognise six
exact sentences, and a roadside unit or an engineer who words the same hazard
differently is not understood. These wordings teach it that other words for the
same hazard (another actor noun, another verb, an implied event, an advisory or
imperative style, with or without a position) mean the same thing and call for
the same careful driving.

Every wording describes a real, relevant, impending hazard on the ego route:
none is negated, irrelevant, behind the ego vehicle, off the route, far away,
already passed or cancelled (those statements are the counterexamples of
``counterexamples.py``, which teach the policy to ignore them, and these
wordings keep away from them). The turning families keep their direction (left
vs right turn) and their actor (a wrong-way vehicle vs a crossing vehicle with
priority).

Training only: the evaluation never reads this module. The wordings were written
without sight of the evaluation's held-out paraphrases, and a test checks that
they stay apart from them: none shares half of its words with a held-out text
(``tests/test_learned_paraphrases.py``; the 8 of the 216 written that did were
removed, unseen by the writer).

Each family has wordings that name the hazard's grounded position with
``PLACEHOLDER`` (replaced by the ego-frame position formatted ``(x, y)`` in
metres, x forward, y right, e.g. ``(23.4, -1.5)``) and wordings without a
position. Plain data: no numpy, torch or rclpy.
"""

from __future__ import annotations

PLACEHOLDER = "{pos}"

_PEDESTRIAN_EMERGENCE = (
    (
        # close rewordings
        "Walker near {pos} is set to move into the lane you are in.",
        "There's a pedestrian located at {pos} who will walk into the ego lane any moment.",
        "Someone on foot around position {pos} is going to cross into your lane.",
        "A pedestrian, {pos}, is stepping off the kerb into the ego vehicle's lane.",
        "The walker at {pos} will enter your lane shortly.",
        "A person at {pos} is starting to cross the road in front of you.",
        "Pedestrian crossing imminent at {pos}, into the lane you're driving in.",
        # implied event
        "Movement near {pos} toward the road: someone is coming out from beside the bus.",
        "Someone hidden by the bus near {pos} is heading out onto the carriageway.",
        "A figure at {pos} is moving off the sidewalk toward your path.",
        "Foot traffic near {pos} is spilling onto the roadway ahead of you.",
        "At {pos}, a person is emerging from the roadside into the path of traffic.",
        "Something is stirring at the curb near {pos}; a person looks set to step out.",
        "A pedestrian out of sight around {pos} is making for the other side of the street.",
        "Close to {pos}, somebody is walking out between the vehicles and into the road.",
        # advisory / imperative
        "Slow down: pedestrian stepping out at {pos}.",
        "Caution, person entering the roadway near {pos}. Be ready to stop.",
        "Heads up - someone on foot at {pos} is about to cross in front of you.",
        "Alert: pedestrian emerging into your lane at {pos}. Reduce speed now.",
        "Prepare to stop for a pedestrian crossing at {pos}.",
        "RSU notice: a walker near {pos} will be in the ego lane within seconds. Ease off and cover the brake.",
        "Brake early - pedestrian at {pos} heading into the road.",
        "Yield to the person crossing at {pos}; they are about to enter your lane.",
    ),
    (
        "A pedestrian is about to step into the road ahead.",
        "Watch out for a person crossing into your lane.",
        "Slow down, a walker is emerging from the roadside.",
        "Caution: pedestrian about to cross just ahead.",
        "A person is coming out from beside a bus and into the lane.",
        "Be ready to brake for a pedestrian entering the carriageway.",
        "Pedestrian emerging from a hidden spot; prepare to stop.",
        "Heads up - someone's stepping off the curb in front of the car.",
        "There's a person heading into the street ahead of you.",
        "Expect a pedestrian in your path shortly.",
        "Give way to the person walking out into the roadway.",
    ),
)

_VEHICLE_CUT_IN = (
    (
        # close rewordings
        "A motorist located at {pos} will pull into the ego lane shortly.",
        "Vehicle near {pos} is moving over into the lane you are in.",
        "A car in the neighbouring lane at {pos} is going to cut in front of you.",
        "The vehicle around position {pos} is changing lanes into the ego lane.",
        "There's a car at {pos} that will move across into the ego vehicle's lane in a moment.",
        "Lane change into your lane imminent from the vehicle at {pos}.",
        # implied event
        "A car near {pos} is drifting over the lane line into your path.",
        "The neighboring car at {pos} has its indicator on and is edging toward your lane.",
        "At {pos}, a vehicle in the next lane is angling its nose into the gap in front of you.",
        "Someone in the adjacent lane at {pos} is squeezing into the space ahead of you.",
        "A car near {pos} is signalling and starting to steer over the dividing line.",
        "The vehicle at {pos} is sliding sideways across the markings toward the ego lane.",
        "Traffic from the adjacent lane, {pos}, is merging just in front of the ego car.",
        "A car at {pos} is crowding into your lane with little room to spare.",
        # advisory / imperative
        "Slow down: car cutting in at {pos}.",
        "Caution, vehicle merging ahead of you near {pos}. Open up the gap.",
        "Heads up - a driver at {pos} is about to pull in front of you.",
        "Alert: lane intrusion by the vehicle at {pos}. Ease off the accelerator.",
        "Prepare to brake for a car cutting across into your lane around {pos}.",
        "Back off: the vehicle located at {pos} is changing into your lane.",
        "Warning from the roadside unit: a car at {pos} will merge into the ego lane in a moment. "
        "Increase your following distance.",
        "Let the car at {pos} in; it's cutting into your lane.",
    ),
    (
        "A car in the next lane is about to cut in front of you.",
        "Watch for a vehicle merging into your lane.",
        "Someone is about to change lanes directly ahead of you.",
        "Caution: vehicle cutting in ahead.",
        "Slow down, a car is moving over into your lane.",
        "Expect a driver from the adjacent lane to squeeze in ahead.",
        "Heads up - lane change into your lane coming up.",
        "A neighbouring vehicle is drifting into the ego lane.",
        "Be ready to brake for a merging car.",
        "The car alongside is going to pull into your lane.",
        "Give the merging car room; it will enter your lane soon.",
        "A motorist is about to swerve in front of the ego vehicle.",
    ),
)

_OBSTACLE_REVEAL = (
    (
        # close rewordings
        "A stationary object at {pos} is obstructing your lane.",
        "Debris located at {pos} is sitting in the lane you are in.",
        "There's a barrier at {pos} blocking the ego lane.",
        "An obstruction near {pos} lies across your lane.",
        "The lane you're driving in is blocked by an object at {pos}.",
        "A fixed obstacle around position {pos} occupies the ego lane.",
        "Something stationary at {pos} is in your lane and staying put.",
        "The ego lane is obstructed at {pos} by a static obstacle.",
        # implied event
        "Once the van ahead moves over, an object at {pos} will be directly in your path.",
        "The vehicle in front is swerving around something at {pos} in your lane.",
        "A hazard concealed by the van ahead is sitting in the road at {pos}.",
        "Your lane is shut at {pos} by an object lying across it.",
        "Something large is lying in the roadway near {pos}.",
        "A roadworks barrier at {pos} stands where you are heading.",
        "At {pos} the carriageway has a fallen load on it, in your lane.",
        "Stuff in the road at {pos}: the lead van is steering around it.",
        # advisory / imperative
        "Slow down: obstacle in lane at {pos}.",
        "Caution, blocked lane at {pos}. Be ready to stop.",
        "Heads up - debris in your lane near {pos}.",
        "Alert: lane obstruction located at {pos}. Reduce speed and prepare to halt.",
        "Prepare to stop before the barrier at {pos}.",
        "Hazard in the lane around {pos}; brake now.",
        "RSU notice: a stationary obstacle at {pos} obstructs the ego lane. "
        "Slow down and expect to stop short of it.",
        "Stop short of the object sitting at {pos} in your lane.",
    ),
    (
        "Something is blocking your lane ahead.",
        "Caution: stationary obstacle in the lane.",
        "There's debris in the road in front of you.",
        "A barrier is sitting in the lane you're in.",
        "Slow down, the ego lane is obstructed.",
        "Watch for a hidden object once the van in front moves over.",
        "Be ready to stop for an obstruction in your lane.",
        "Heads up - lane blocked by a static object.",
        "An obstacle will appear in your path when the lead vehicle changes lanes.",
        "Expect to brake for something lying in the roadway.",
        "Your lane is shut by a fixed obstruction up ahead.",
        "Obstacle in the carriageway; prepare to halt.",
    ),
)

_LEFT_TURN_WRONG_WAY = (
    (
        # close rewordings
        "A wrong-way driver located at {pos} will cut across the path of your left turn. "
        "Give way before you turn left.",
        "The vehicle at {pos} is travelling against traffic and will cross the ego's left-turn route.",
        "A ghost driver near {pos} will pass through your left turn. Wait before turning left.",
        "An oncoming car going against the flow at {pos} will cross where you turn left.",
        "A motorist at {pos} on the wrong side of the road will cross your left-turn line. Hold the turn.",
        "A vehicle at {pos} that's going in the wrong direction will intersect your left turn.",
        # implied event
        "Something is coming the wrong way out of the road you're turning left into, at {pos}.",
        "At {pos}, a car is heading for the junction in the exit lane of your left turn, against traffic.",
        "The lane you want to turn left into has a car at {pos} facing you and moving.",
        "A driver at {pos} has entered the junction against the direction of travel and is crossing "
        "your left-turn arc.",
        "Headlights at {pos} are coming down your left-turn exit lane the wrong way.",
        "A car near {pos} is charging through the intersection from the wrong side, across your left turn.",
        "Your left-turn path meets a wrong-way vehicle at {pos}.",
        "A vehicle at {pos} is going against the flow toward the junction, just where you'd turn left.",
        # advisory / imperative
        "Hold your left turn: wrong-way car at {pos}.",
        "Caution, vehicle against traffic near {pos}. Yield before you turn left.",
        "Heads up - a wrong-way driver at {pos} will cross your left turn.",
        "Alert: ghost driver at {pos} crossing the left-turn path. Wait, then turn.",
        "Prepare to stop before turning left; a wrong-way vehicle at {pos} is crossing.",
        "Give way before your left turn to the car travelling the wrong way at {pos}.",
        "Traffic centre alert: a wrong-way car is approaching the junction from {pos}. "
        "Let it through before you make your left turn.",
        "Wait at the junction - wrong-way traffic at {pos} is crossing where you turn left.",
    ),
    (
        "A wrong-way car will cross your left turn; yield first.",
        "Watch for a vehicle driving against traffic before turning left.",
        "Caution: wrong-way driver at the junction. Hold your left turn.",
        "Give way before turning left - there's a car going the wrong direction.",
        "A ghost driver is about to cut across your left-turn path.",
        "Wait before you turn left; oncoming traffic is on the wrong side of the road.",
        "Someone is driving the wrong way through the intersection where you'll turn left.",
        "Slow down and yield: a vehicle against the flow will cross the left-turn route.",
        "Heads up - wrong-way traffic in the road you're turning left into.",
        "Be ready to stop before the left turn for a car travelling the wrong way.",
        "Your left-turn maneuver will be crossed by a wrong-way vehicle.",
        "Prepare to halt at the junction; a wrong-way motorist is crossing your left-turn line.",
    ),
)

_RIGHT_TURN_WRONG_WAY = (
    (
        # close rewordings
        "A vehicle going the wrong way at {pos} is set to cross your right-turn path.",
        "A wrong-way motorist located at {pos} will cut through the ego right-turn route. "
        "Yield before turning right.",
        "The car at {pos} is driving against the traffic flow and will cross where you turn right.",
        "A ghost driver around position {pos} will cross the right turn you are making. Give way first.",
        "Wrong-way vehicle near {pos} is about to pass across your right-turn line.",
        "A car travelling in the wrong direction at {pos} will intersect the ego vehicle's right-turn path.",
        "An oncoming vehicle at {pos} on the wrong side will cross your right turn. Hold back before turning right.",
        "The driver at {pos}, going the wrong way, will move through your right-turn path soon.",
        # implied event
        "A car at {pos} is coming the wrong way up the street you're turning right into.",
        "At {pos}, something is heading into the junction against the flow, across your right turn.",
        "The exit lane of your right turn has a car in it at {pos}, pointed the wrong way and moving.",
        "A wrong-way car near {pos} is barrelling toward the intersection where you make your right turn.",
        "Headlights facing you at {pos} in the road you're turning right into.",
        "Your right-turn route is about to be crossed by a vehicle at {pos} going against traffic.",
        "A car at {pos} has gone the wrong way into the junction and is heading for your right-turn path.",
        "Traffic at {pos} is running counter to the lane direction, straight across your right turn.",
        # advisory / imperative
        "Delay the right turn: wrong-way vehicle near {pos}.",
        "Caution, ghost driver at {pos}. Give way before you turn right.",
        "Heads up - car going the wrong way at {pos} will cut across your right turn.",
        "Alert: against-traffic vehicle at {pos} crossing the right-turn path. Stop and let it go.",
        "Prepare to stop before turning right for the wrong-way car at {pos}.",
        "Yield before the right turn; a vehicle at {pos} is coming the wrong way through the junction.",
        "RSU warning: a wrong-way driver is entering the junction from {pos}. "
        "Wait for it to go through, then make your right turn.",
        "Stop at the line - wrong-way car at {pos} will cross where you turn right.",
    ),
    (
        "A wrong-way vehicle is about to cross your right turn; give way.",
        "Caution: ghost driver near the junction. Delay your right turn.",
        "Yield before turning right - a car is coming the wrong way.",
        "Someone is going the wrong direction through your right-turn path.",
        "Wait before the right turn; there's wrong-way traffic at the intersection.",
        "Slow down: a car against the flow will cut across where you turn right.",
        "Heads up - a wrong-way motorist is crossing the road you're turning right into.",
        "Be ready to stop before turning right for a wrong-way driver.",
        "Your right turn will be crossed by a vehicle travelling the wrong way.",
        "Hold at the junction; wrong-way car crossing the right-turn route.",
        "Give way to the wrong-way vehicle before making the right-turn manoeuvre.",
    ),
)

_RIGHT_TURN_YIELD = (
    (
        # close rewordings
        "A car at {pos} is about to cross your right-turn path; give way before turning right.",
        "The motorist located at {pos} has priority and will pass through the ego right-turn route.",
        "A vehicle near {pos} on the crossing road will cut across where you turn right. Wait before you turn.",
        "Cross traffic around position {pos} will go through your right turn. Yield first.",
        "There's a car at {pos} coming along the cross street that will intersect your right-turn path.",
        "An approaching vehicle at {pos} will traverse the path of your right turn. "
        "Let it pass before turning right.",
        "The driver at {pos} has right of way across your right-turn line.",
        "A car travelling on the intersecting road at {pos} is going to cross the ego vehicle's right-turn path.",
        # implied event
        "Traffic from the left at {pos} is heading through the junction where you're turning right.",
        "A car near {pos} is speeding up along the cross street toward your turn.",
        "Someone coming down the crossing road at {pos} will reach your right-turn path first.",
        "At {pos}, a vehicle with the green is rolling toward the intersection across your right turn.",
        "A car out of sight near {pos} is setting off along the cross street and will pass in front of your turn.",
        "The junction you're turning right at has a car arriving from {pos}.",
        "The gap you'd use to turn right is closing: a vehicle at {pos} is coming through.",
        "A line of cross traffic is on its way, led by the car at {pos}, over your right-turn path.",
        # advisory / imperative
        "Give way before turning right: car at {pos}.",
        "Caution, crossing traffic near {pos}. Wait before you turn right.",
        "Heads up - a vehicle at {pos} will pass through your right turn.",
        "Alert: priority vehicle at {pos} crossing the right-turn path. Hold and yield.",
        "Prepare to stop before your right turn for the car coming from {pos}.",
        "Hold the right turn; the cross-traffic vehicle located at {pos} goes first.",
        "Traffic center notice: a car from the left, now at {pos}, has the right of way through the junction. "
        "Stop at the line and let it go before you turn right.",
        "Wait for the car at {pos} to cross before you make your right turn.",
    ),
    (
        "Give way to crossing traffic before turning right.",
        "A car on the cross street will pass through your right turn.",
        "Caution: vehicle with priority crossing your right-turn path.",
        "Yield to the approaching car before making your right turn.",
        "Heads up - cross traffic will cut across where you turn right.",
        "Be ready to stop before the right turn for an approaching vehicle on the crossing road.",
        "Slow down and let the crossing vehicle go before turning right.",
        "Someone is driving through the junction across your right-turn route.",
        "Hold your right turn for the car coming along the cross road.",
        "A car with right of way is about to cross the path of your right turn.",
        "Prepare to halt at the intersection; traffic is crossing the right-turn line.",
    ),
)

#: family -> (wordings that name the hazard's position with {pos}, wordings without a position)
WORDINGS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "pedestrian_emergence": _PEDESTRIAN_EMERGENCE,
    "vehicle_cut_in": _VEHICLE_CUT_IN,
    "obstacle_reveal": _OBSTACLE_REVEAL,
    "left_turn_wrong_way": _LEFT_TURN_WRONG_WAY,
    "right_turn_wrong_way": _RIGHT_TURN_WRONG_WAY,
    "right_turn_yield": _RIGHT_TURN_YIELD,
}


def _family(family: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    try:
        return WORDINGS[family]
    except KeyError:
        raise KeyError(f"unknown hazard family {family!r}; known families: {', '.join(WORDINGS)}") from None


def positioned(family: str) -> tuple[str, ...]:
    """The family's wordings that name the hazard's position (each holds ``PLACEHOLDER`` once)."""
    return _family(family)[0]


def positionless(family: str) -> tuple[str, ...]:
    """The family's wordings without a position (no ``PLACEHOLDER``, no numbers)."""
    return _family(family)[1]
