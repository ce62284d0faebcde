"""The warning-server parameter YAMLs match the nodes' parameter dataclasses (no typos, nothing missing)."""

from __future__ import annotations

import pytest

from lantern.ros.params import field_names, load_yaml_params


@pytest.mark.parametrize(
    "yaml_name,node_name,module,cls",
    [
        ("rsu.yaml", "lantern_rsu", "lantern_warning_server.rsu_node", "RsuParams"),
        ("grounding.yaml", "lantern_grounding", "lantern_warning_server.grounding_node", "GroundingParams"),
        ("channel.yaml", "lantern_channel", "lantern_warning_server.channel_node", "ChannelNodeParams"),
    ],
)
def test_yaml_matches_params(repo_root, yaml_name, node_name, module, cls):
    import importlib

    spec = getattr(importlib.import_module(module), cls)
    values = load_yaml_params(repo_root / "config" / yaml_name, node_name)
    keys = set(values) - {"use_sim_time"}
    assert keys == field_names(spec), f"{yaml_name}: extra {keys - field_names(spec)}, missing {field_names(spec) - keys}"
    defaults = spec()
    for k in keys:  # the YAML documents the dataclass defaults
        d = getattr(defaults, k)
        assert values[k] == d or (isinstance(d, float) and float(values[k]) == d), f"{yaml_name}: {k}={values[k]!r} but the default is {d!r}"


def test_channel_yaml_is_table4(repo_root):
    from lantern_warning_server.channel import ChannelParams

    values = load_yaml_params(repo_root / "config" / "channel.yaml", "lantern_channel")
    assert ChannelParams(**{k: values[k] for k in ChannelParams.__dataclass_fields__}) == ChannelParams()
