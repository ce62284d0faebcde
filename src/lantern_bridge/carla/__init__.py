"""CARLA backend of the bridge: the same per-frame interface as the embedded SessionWorld, through the `carla` client.

Nothing here imports ``carla`` at module import time (``connection.import_carla``
does it lazily), so the package is importable and testable without the wheel.
"""
