"""Faithful fakes of ika-rwth-aachen etsi_its_messages: etsi_its_spatem_ts_msgs, etsi_its_mapem_ts_msgs, etsi_its_cam_msgs.

Why fakes: the real packages are ROS builds (not on PyPI). These carry the
real field names, nesting, ``.value`` / ``.array`` wrappers, ``_is_present``
flags, CHOICE indices and BIT STRING layout of every type the ETSI adapter
touches (read from the packages' msg/*.msg), and check assignments as
rosidl-generated Python messages do with ROS_PYTHON_CHECK_FIELDS=1: unknown
field -> AttributeError, wrong type or out-of-range integer -> AssertionError.
Types the adapter never touches are kept as empty messages under their real
names. They keep the unit tests fast; the "real" cases and
tests/test_v2x_adapters_upstream.py run on the classes built from the upstream
.msg files (tests/upstream_msgs), and check these schemas against them.
"""

from __future__ import annotations

import types

_INT_RANGE = {"u8": (0, 2**8 - 1), "u16": (0, 2**16 - 1), "u32": (0, 2**32 - 1), "u64": (0, 2**64 - 1),
              "i16": (-(2**15), 2**15 - 1), "i32": (-(2**31), 2**31 - 1)}
BITS = {"value": "u8[]", "bits_unused": "u8"}


def _scalars(kind: str, *names: str) -> dict[str, dict[str, str]]:
    return {n: {"value": kind} for n in names}


def _opaque(*names: str) -> dict[str, dict[str, str]]:
    return {n: {} for n in names}


def _header_types() -> dict[str, dict[str, str]]:
    return {"ItsPduHeader": {"protocol_version": "u8", "message_id": "u8", "station_id": "StationID"}, **_scalars("u32", "StationID")}


SPATEM: dict[str, dict[str, str]] = {
    **_header_types(),
    "SPATEM": {"header": "ItsPduHeader", "spat": "SPAT"},
    "SPAT": {"time_stamp": "MinuteOfTheYear", "time_stamp_is_present": "bool", "name": "DescriptiveName", "name_is_present": "bool",
             "intersections": "IntersectionStateList"},
    "IntersectionStateList": {"array": "IntersectionState[]"},
    "IntersectionState": {"name": "DescriptiveName", "name_is_present": "bool", "id": "IntersectionReferenceID", "revision": "MsgCount",
                          "status": "IntersectionStatusObject", "moy": "MinuteOfTheYear", "moy_is_present": "bool", "time_stamp": "DSecond",
                          "time_stamp_is_present": "bool", "enabled_lanes": "EnabledLaneList", "enabled_lanes_is_present": "bool",
                          "states": "MovementList", "maneuver_assist_list": "ManeuverAssistList", "maneuver_assist_list_is_present": "bool"},
    "IntersectionReferenceID": {"region": "RoadRegulatorID", "region_is_present": "bool", "id": "IntersectionID"},
    "IntersectionStatusObject": BITS,
    "EnabledLaneList": {"array": "LaneID[]"},
    "MovementList": {"array": "MovementState[]"},
    "MovementState": {"movement_name": "DescriptiveName", "movement_name_is_present": "bool", "signal_group": "SignalGroupID",
                      "state_time_speed": "MovementEventList", "maneuver_assist_list": "ManeuverAssistList", "maneuver_assist_list_is_present": "bool"},
    "MovementEventList": {"array": "MovementEvent[]"},
    "MovementEvent": {"event_state": "MovementPhaseState", "timing": "TimeChangeDetails", "timing_is_present": "bool",
                      "speeds": "AdvisorySpeedList", "speeds_is_present": "bool"},
    "TimeChangeDetails": {"start_time": "TimeMark", "start_time_is_present": "bool", "min_end_time": "TimeMark", "max_end_time": "TimeMark",
                          "max_end_time_is_present": "bool", "likely_time": "TimeMark", "likely_time_is_present": "bool",
                          "confidence": "TimeIntervalConfidence", "confidence_is_present": "bool", "next_time": "TimeMark", "next_time_is_present": "bool"},
    "ManeuverAssistList": {"array": "ConnectionManeuverAssist[]"},
    "AdvisorySpeedList": {"array": "AdvisorySpeed[]"},
    **_scalars("u8", "MsgCount", "SignalGroupID", "MovementPhaseState", "LaneID", "TimeIntervalConfidence"),
    **_scalars("u16", "IntersectionID", "RoadRegulatorID", "DSecond", "TimeMark"),
    **_scalars("u32", "MinuteOfTheYear"),
    **_scalars("str", "DescriptiveName"),
    **_opaque("ConnectionManeuverAssist", "AdvisorySpeed"),
}

MAPEM: dict[str, dict[str, str]] = {
    **_header_types(),
    "MAPEM": {"header": "ItsPduHeader", "map": "MapData"},
    "MapData": {"time_stamp": "MinuteOfTheYear", "time_stamp_is_present": "bool", "msg_issue_revision": "MsgCount", "layer_type": "LayerType",
                "layer_type_is_present": "bool", "layer_id": "LayerID", "layer_id_is_present": "bool", "intersections": "IntersectionGeometryList",
                "intersections_is_present": "bool", "road_segments": "RoadSegmentList", "road_segments_is_present": "bool",
                "data_parameters": "DataParameters", "data_parameters_is_present": "bool", "restriction_list": "RestrictionClassList",
                "restriction_list_is_present": "bool"},
    "IntersectionGeometryList": {"array": "IntersectionGeometry[]"},
    "IntersectionGeometry": {"name": "DescriptiveName", "name_is_present": "bool", "id": "IntersectionReferenceID", "revision": "MsgCount",
                             "ref_point": "Position3D", "lane_width": "LaneWidth", "lane_width_is_present": "bool", "speed_limits": "SpeedLimitList",
                             "speed_limits_is_present": "bool", "lane_set": "LaneList", "preempt_priority_data": "PreemptPriorityList",
                             "preempt_priority_data_is_present": "bool"},
    "IntersectionReferenceID": {"region": "RoadRegulatorID", "region_is_present": "bool", "id": "IntersectionID"},
    "Position3D": {"lat": "Latitude", "lon": "Longitude", "elevation": "Elevation", "elevation_is_present": "bool"},
    "LaneList": {"array": "GenericLane[]"},
    "GenericLane": {"lane_id": "LaneID", "name": "DescriptiveName", "name_is_present": "bool", "ingress_approach": "ApproachID",
                    "ingress_approach_is_present": "bool", "egress_approach": "ApproachID", "egress_approach_is_present": "bool",
                    "lane_attributes": "LaneAttributes", "maneuvers": "AllowedManeuvers", "maneuvers_is_present": "bool", "node_list": "NodeListXY",
                    "connects_to": "ConnectsToList", "connects_to_is_present": "bool", "overlays": "OverlayLaneList", "overlays_is_present": "bool"},
    "LaneAttributes": {"directional_use": "LaneDirection", "shared_with": "LaneSharing", "lane_type": "LaneTypeAttributes"},
    "LaneTypeAttributes": {"choice": "u8", "vehicle": "LaneAttributesVehicle", "crosswalk": "LaneAttributesCrosswalk", "bike_lane": "LaneAttributesBike",
                           "sidewalk": "LaneAttributesSidewalk", "median": "LaneAttributesBarrier", "striping": "LaneAttributesStriping",
                           "tracked_vehicle": "LaneAttributesTrackedVehicle", "parking": "LaneAttributesParking"},
    **{n: BITS for n in ("LaneDirection", "LaneSharing", "AllowedManeuvers", "LaneAttributesVehicle", "LaneAttributesCrosswalk", "LaneAttributesBike",
                         "LaneAttributesSidewalk", "LaneAttributesBarrier", "LaneAttributesStriping", "LaneAttributesTrackedVehicle", "LaneAttributesParking")},
    "NodeListXY": {"choice": "u8", "nodes": "NodeSetXY", "computed": "ComputedLane"},
    "NodeSetXY": {"array": "NodeXY[]"},
    "NodeXY": {"delta": "NodeOffsetPointXY", "attributes": "NodeAttributeSetXY", "attributes_is_present": "bool"},
    "NodeOffsetPointXY": {"choice": "u8", "node_xy1": "NodeXY20b", "node_xy2": "NodeXY22b", "node_xy3": "NodeXY24b", "node_xy4": "NodeXY26b",
                          "node_xy5": "NodeXY28b", "node_xy6": "NodeXY32b", "node_lat_lon": "NodeLLmD64b"},
    **{f"NodeXY{b}b": {"x": f"OffsetB{o}", "y": f"OffsetB{o}"} for b, o in ((20, 10), (22, 11), (24, 12), (26, 13), (28, 14), (32, 16))},
    "NodeLLmD64b": {"lon": "Longitude", "lat": "Latitude"},
    "ComputedLane": {"reference_lane_id": "LaneID", "offset_xaxis_choice": "u8", "offset_xaxis_small": "DrivenLineOffsetSm",
                     "offset_xaxis_large": "DrivenLineOffsetLg", "offset_yaxis_choice": "u8", "offset_yaxis_small": "DrivenLineOffsetSm",
                     "offset_yaxis_large": "DrivenLineOffsetLg", "rotate_xy": "Angle", "rotate_xy_is_present": "bool", "scale_xaxis": "ScaleB12",
                     "scale_xaxis_is_present": "bool", "scale_yaxis": "ScaleB12", "scale_yaxis_is_present": "bool"},
    "ConnectsToList": {"array": "Connection[]"},
    "Connection": {"connecting_lane": "ConnectingLane", "remote_intersection": "IntersectionReferenceID", "remote_intersection_is_present": "bool",
                   "signal_group": "SignalGroupID", "signal_group_is_present": "bool", "user_class": "RestrictionClassID",
                   "user_class_is_present": "bool", "connection_id": "LaneConnectionID", "connection_id_is_present": "bool"},
    "ConnectingLane": {"lane": "LaneID", "maneuver": "AllowedManeuvers", "maneuver_is_present": "bool"},
    **_scalars("u8", "MsgCount", "LayerType", "LayerID", "LaneID", "ApproachID", "SignalGroupID", "RestrictionClassID", "LaneConnectionID"),
    **_scalars("u16", "IntersectionID", "RoadRegulatorID", "LaneWidth", "Angle"),
    **_scalars("u32", "MinuteOfTheYear"),
    **_scalars("i32", "Latitude", "Longitude", "Elevation"),
    **_scalars("i16", "OffsetB10", "OffsetB11", "OffsetB12", "OffsetB13", "OffsetB14", "OffsetB16", "DrivenLineOffsetSm", "DrivenLineOffsetLg", "ScaleB12"),
    **_scalars("str", "DescriptiveName"),
    **_opaque("RoadSegmentList", "DataParameters", "RestrictionClassList", "SpeedLimitList", "PreemptPriorityList", "OverlayLaneList", "NodeAttributeSetXY"),
}

CAM: dict[str, dict[str, str]] = {
    **_header_types(),
    "CAM": {"header": "ItsPduHeader", "cam": "CoopAwareness"},
    "CoopAwareness": {"generation_delta_time": "GenerationDeltaTime", "cam_parameters": "CamParameters"},
    "CamParameters": {"basic_container": "BasicContainer", "high_frequency_container": "HighFrequencyContainer",
                      "low_frequency_container": "LowFrequencyContainer", "low_frequency_container_is_present": "bool",
                      "special_vehicle_container": "SpecialVehicleContainer", "special_vehicle_container_is_present": "bool"},
    "BasicContainer": {"station_type": "StationType", "reference_position": "ReferencePosition"},
    "ReferencePosition": {"latitude": "Latitude", "longitude": "Longitude", "position_confidence_ellipse": "PosConfidenceEllipse", "altitude": "Altitude"},
    "PosConfidenceEllipse": {"semi_major_confidence": "SemiAxisLength", "semi_minor_confidence": "SemiAxisLength", "semi_major_orientation": "HeadingValue"},
    "Altitude": {"altitude_value": "AltitudeValue", "altitude_confidence": "AltitudeConfidence"},
    "HighFrequencyContainer": {"choice": "u8", "basic_vehicle_container_high_frequency": "BasicVehicleContainerHighFrequency",
                               "rsu_container_high_frequency": "RSUContainerHighFrequency"},
    "BasicVehicleContainerHighFrequency": {
        "heading": "Heading", "speed": "Speed", "drive_direction": "DriveDirection", "vehicle_length": "VehicleLength", "vehicle_width": "VehicleWidth",
        "longitudinal_acceleration": "LongitudinalAcceleration", "curvature": "Curvature", "curvature_calculation_mode": "CurvatureCalculationMode",
        "yaw_rate": "YawRate", "acceleration_control": "AccelerationControl", "acceleration_control_is_present": "bool",
        "lane_position": "LanePosition", "lane_position_is_present": "bool", "steering_wheel_angle": "SteeringWheelAngle",
        "steering_wheel_angle_is_present": "bool", "lateral_acceleration": "LateralAcceleration", "lateral_acceleration_is_present": "bool",
        "vertical_acceleration": "VerticalAcceleration", "vertical_acceleration_is_present": "bool", "performance_class": "PerformanceClass",
        "performance_class_is_present": "bool", "cen_dsrc_tolling_zone": "CenDsrcTollingZone", "cen_dsrc_tolling_zone_is_present": "bool"},
    "Heading": {"heading_value": "HeadingValue", "heading_confidence": "HeadingConfidence"},
    "Speed": {"speed_value": "SpeedValue", "speed_confidence": "SpeedConfidence"},
    "VehicleLength": {"vehicle_length_value": "VehicleLengthValue", "vehicle_length_confidence_indication": "VehicleLengthConfidenceIndication"},
    "LongitudinalAcceleration": {"longitudinal_acceleration_value": "LongitudinalAccelerationValue",
                                 "longitudinal_acceleration_confidence": "AccelerationConfidence"},
    "Curvature": {"curvature_value": "CurvatureValue", "curvature_confidence": "CurvatureConfidence"},
    "YawRate": {"yaw_rate_value": "YawRateValue", "yaw_rate_confidence": "YawRateConfidence"},
    "AccelerationControl": BITS,
    **_scalars("u8", "StationType", "AltitudeConfidence", "HeadingConfidence", "SpeedConfidence", "DriveDirection", "VehicleLengthConfidenceIndication",
               "VehicleWidth", "AccelerationConfidence", "CurvatureConfidence", "CurvatureCalculationMode", "YawRateConfidence"),
    **_scalars("u16", "GenerationDeltaTime", "SemiAxisLength", "HeadingValue", "SpeedValue", "VehicleLengthValue"),
    **_scalars("i16", "LongitudinalAccelerationValue", "CurvatureValue", "YawRateValue"),
    **_scalars("i32", "Latitude", "Longitude", "AltitudeValue"),
    **_opaque("RSUContainerHighFrequency", "LowFrequencyContainer", "SpecialVehicleContainer", "LanePosition", "SteeringWheelAngle",
              "LateralAcceleration", "VerticalAcceleration", "PerformanceClass", "CenDsrcTollingZone"),
}


def _check(owner: str, field: str, kind: str, value: object, mod: types.SimpleNamespace) -> None:
    where = f"{owner}.{field}"
    if kind == "bool":
        assert isinstance(value, bool), f"{where}: bool expected, got {value!r}"
    elif kind == "str":
        assert isinstance(value, str), f"{where}: str expected, got {value!r}"
    elif kind == "u8[]":
        assert isinstance(value, list) and all(isinstance(b, int) and 0 <= b <= 255 for b in value), f"{where}: uint8[] expected, got {value!r}"
    elif kind in _INT_RANGE:
        lo, hi = _INT_RANGE[kind]
        assert isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi, f"{where}: {kind} expected, got {value!r}"
    elif kind.endswith("[]"):
        cls = getattr(mod, kind[:-2])
        assert isinstance(value, list) and all(isinstance(v, cls) for v in value), f"{where}: list of {kind[:-2]} expected"
    else:
        assert isinstance(value, getattr(mod, kind)), f"{where}: {kind} expected, got {type(value).__name__}"


def _module(schema: dict[str, dict[str, str]]) -> types.SimpleNamespace:
    mod = types.SimpleNamespace()

    def default(kind: str) -> object:
        if kind == "bool":
            return False
        if kind == "str":
            return ""
        if kind.endswith("[]"):
            return []
        if kind in _INT_RANGE:
            return 0
        return getattr(mod, kind)()

    def make(name: str, fields: dict[str, str]) -> type:
        def __init__(self) -> None:  # noqa: N807
            for f, kind in fields.items():
                object.__setattr__(self, f, default(kind))

        def __setattr__(self, f: str, v: object) -> None:  # noqa: N807
            if f not in fields:
                raise AttributeError(f"{name} has no field {f!r}")
            _check(name, f, fields[f], v, mod)
            object.__setattr__(self, f, v)

        return type(name, (), {"__init__": __init__, "__setattr__": __setattr__})

    for name, fields in schema.items():
        setattr(mod, name, make(name, fields))
    return mod


def spatem() -> types.SimpleNamespace:
    return _module(SPATEM)


def mapem() -> types.SimpleNamespace:
    return _module(MAPEM)


def cam() -> types.SimpleNamespace:
    return _module(CAM)
