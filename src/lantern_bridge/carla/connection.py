"""Connection to a CARLA server: lazy ``import carla``, synchronous mode, settings restored on close.

The ``carla`` client wheel must match the server's version exactly (CARLA's RPC
is not compatible across versions), so it is not a dependency of lantern: it is
imported only when a CARLA session starts, with an error that says what to
install when it is missing.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from types import ModuleType
from typing import Any

INSTALL_HINT = (
    "the CARLA backend needs the `carla` Python client, which is not installed in this environment: "
    "install the wheel that matches your CARLA server version exactly, e.g. `pip install carla==0.9.16` "
    "for a 0.9.16 server (PyPI has cp311/cp312 wheels), or `pip install <CARLA_ROOT>/PythonAPI/carla/dist/carla-<version>-<python>.whl`; "
    "or run with simulator:=embedded"
)


class CarlaUnavailableError(RuntimeError):
    """The `carla` package cannot be imported (the message says what to install)."""


class CarlaConnectionError(RuntimeError):
    """The server cannot be reached or refused a request (host/port/operation in the message)."""


def import_carla() -> ModuleType:
    """Import the `carla` module now (never at lantern import time)."""
    mod = sys.modules.get("carla")
    if mod is not None:
        return mod
    try:
        return importlib.import_module("carla")
    except ImportError as exc:
        raise CarlaUnavailableError(f"{INSTALL_HINT} ({type(exc).__name__}: {exc})") from exc


@dataclass(frozen=True)
class ConnectionConfig:
    host: str = "localhost"
    port: int = 2000
    timeout: float = 20.0  # s, client RPC timeout (map loads take longer than ticks)
    town: str = ""  # "" = keep the map the server has loaded
    fixed_delta_seconds: float = 0.05
    tm_port: int = 8000  # Traffic Manager port; it must tick in synchronous mode too


def _map_basename(name: str) -> str:
    return str(name).rsplit("/", 1)[-1]


class CarlaConnection:
    """Context manager: connect, optionally load a town, switch to synchronous mode; restore on exit.

    Synchronous mode with a fixed step is what makes a CARLA run a function of
    the controls (the server waits for ``world.tick()``); the previous settings
    are put back on close so a shared server is left as it was found.
    """

    def __init__(self, cfg: ConnectionConfig) -> None:
        if cfg.fixed_delta_seconds <= 0:
            raise ValueError(f"fixed_delta_seconds must be positive, got {cfg.fixed_delta_seconds}")
        self.cfg = cfg
        self.carla: ModuleType | None = None
        self.client: Any = None
        self.world: Any = None
        self.traffic_manager: Any = None
        self._previous: Any = None
        self.server_version = ""

    def _where(self) -> str:
        return f"CARLA server {self.cfg.host}:{self.cfg.port}"

    def open(self) -> CarlaConnection:
        carla = self.carla = import_carla()
        cfg = self.cfg
        try:
            self.client = carla.Client(cfg.host, int(cfg.port))
            self.client.set_timeout(float(cfg.timeout))
            self.server_version = str(self.client.get_server_version())
        except RuntimeError as exc:
            raise CarlaConnectionError(f"{self._where()}: cannot connect within {cfg.timeout:g} s ({exc})") from exc
        client_version = str(getattr(self.client, "get_client_version", lambda: "")())
        if client_version and self.server_version and client_version.split("-")[0] != self.server_version.split("-")[0]:
            raise CarlaConnectionError(f"{self._where()}: client {client_version} does not match server {self.server_version}; {INSTALL_HINT}")
        try:
            world = self.client.get_world()
            if cfg.town and _map_basename(world.get_map().name) != _map_basename(cfg.town):
                world = self.client.load_world(cfg.town)
        except RuntimeError as exc:
            raise CarlaConnectionError(f"{self._where()}: cannot load town {cfg.town!r} ({exc})") from exc
        self.world = world
        self._previous = world.get_settings()
        settings = world.get_settings()
        settings.synchronous_mode = True
        settings.fixed_delta_seconds = float(cfg.fixed_delta_seconds)
        world.apply_settings(settings)
        self.traffic_manager = self.client.get_trafficmanager(int(cfg.tm_port))
        self.traffic_manager.set_synchronous_mode(True)
        world.tick()  # the new settings take effect from the next frame
        return self

    def close(self) -> None:
        """Restore the settings found on connect (asynchronous mode on a fresh server)."""
        if self.world is None:
            return
        try:
            if self.traffic_manager is not None:
                self.traffic_manager.set_synchronous_mode(False)
            if self._previous is not None:
                self.world.apply_settings(self._previous)
        finally:
            self.world = None

    def __enter__(self) -> CarlaConnection:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()
