"""Embedded simulator: roads, ego bicycle, actors, traffic, CPU camera, visibility, events (no rclpy)."""

from lantern_bridge.world.actors import SIZES, Actor
from lantern_bridge.world.errors import UnknownActorError, WorldError
from lantern_bridge.world.events import Collision, Infraction, StepResult
from lantern_bridge.world.layout import LayoutSpec
from lantern_bridge.world.roads import Route
from lantern_bridge.world.vehicle import VehicleState
from lantern_bridge.world.weather import PROFILES, weather_profile
from lantern_bridge.world.world import EGO_ID, World

__all__ = ["Actor", "SIZES", "World", "WorldError", "UnknownActorError", "Collision", "Infraction", "StepResult", "LayoutSpec", "Route", "VehicleState", "PROFILES", "weather_profile", "EGO_ID"]
