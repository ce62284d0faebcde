"""Scenario side of the bridge: the six LANTERN families, route files, temporal protocol, suite.

Pure Python (no rclpy). See docs/scenarios.md.
"""
