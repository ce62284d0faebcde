"""Recorder, metrics, CUS, offline scoring from rosbags, reports."""
