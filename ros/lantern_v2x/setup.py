"""ament_python shim: everything is declared in setup.cfg (read by colcon and by scripts/ament_install.py)."""

from setuptools import setup

setup()
