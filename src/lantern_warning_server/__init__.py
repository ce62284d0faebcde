"""RSU emulation, onboard grounding, protocol variants, V2X channel and faults, adapters."""
