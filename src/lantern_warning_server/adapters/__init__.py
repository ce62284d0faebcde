"""Adapters that turn real V2X message sets into HazardNotice (pure mapping + thin nodes)."""
