"""libyaml in place of the ruamel ``YAML(typ='safe')`` rosbags builds for the YAML a bag holds.

Why: rosbags dumps every topic's offered QoS and the metadata with ruamel's Python representer (0.2-0.5 s
of a warm run's start-up and close) and reads the QoS back with its Python constructor (~0.05 s of the
bag check after each run). libyaml writes the same text for these documents (sorted keys, block style,
unicode as is) and reads QoS documents (integers, policy names, booleans) as ruamel does:
``tests/test_bag_writer_yaml.py`` compares whole bags and QoS readings both ways. metadata.yaml itself
is still read by ruamel (YAML 1.2), the only reader that sees a bag from elsewhere.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

import yaml


class LibyamlSafe:
    """The part of ruamel's ``YAML(typ='safe')`` rosbags uses (``default_flow_style``, ``dump``, ``load``), by libyaml."""

    def __init__(self, typ: str = "safe") -> None:
        self.default_flow_style: bool | None = False

    def dump(self, data: Any, stream: io.StringIO) -> None:
        stream.write(yaml.dump(data, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), default_flow_style=self.default_flow_style,
                               sort_keys=True, allow_unicode=True))

    def load(self, text: str) -> Any:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


@contextmanager
def rosbags_yaml(module: ModuleType, impl: Any = LibyamlSafe) -> Iterator[None]:
    """A rosbags module (its writer, its metadata reader) with ``impl`` as its YAML class for the duration
    (it builds one per document)."""
    saved = module.YAML
    module.YAML = impl
    try:
        yield
    finally:
        module.YAML = saved
