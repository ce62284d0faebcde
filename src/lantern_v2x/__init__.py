"""LAST-V2X testing: V2X safety applications on SPaT / MAP / BSM, a shadow ground-truth ego, causal admission.

Layer: above the four capability packages (it composes the embedded world, the
V2X channel and the agents' controllers into paired executions), below the top
floor (``lantern_bringup`` hands it the ``lantern v2x`` subcommand). Pure logic
throughout; the ROS node and the bag writer are thin shells over it.
"""
