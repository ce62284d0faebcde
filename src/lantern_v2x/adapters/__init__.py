"""Adapters between lantern_v2x's J2735-shaped dataclasses and the real ROS message sets (imported lazily).

``j2735``: carma-msgs ``j2735_v2x_msgs`` (SPAT, MapData, BSM); ``etsi``:
ika-rwth-aachen ``etsi_its_messages`` (SPATEM, MAPEM: ``etsi_its_spatem_ts_msgs``
/ ``etsi_its_mapem_ts_msgs``; CAM: ``etsi_its_cam_msgs``). ``wire`` holds the
shared unit and time conversions (both sets carry J2735 / ETSI wire units).
"""
