"""Simulator side: embedded simulator, CARLA backend, scenario controller, bridge node."""
