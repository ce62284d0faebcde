"""Weather / time-of-day profiles of LANTERN App. B, and how each one looks.

The closed-loop suite uses five fixed profiles; their CARLA settings (cloud,
rain, wetness, fog, sun altitude) are copied from the paper. The renderer
derives its look from those numbers (light level, sky, haze distance, wet
road sheen, rain streaks), so a profile changes the image, not just a label.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lantern_bridge.world.errors import WorldError


@dataclass(frozen=True)
class WeatherProfile:
    name: str
    cloudiness: float  # CARLA 0-100
    precipitation: float  # CARLA 0-100
    wetness: float  # CARLA 0-100
    fog_density: float  # CARLA 0-100
    sun_altitude: float  # degrees

    @property
    def night(self) -> bool:
        """Sun below the horizon (only the App. B open-loop extension has such profiles)."""
        return self.sun_altitude < 0.0

    @property
    def light(self) -> float:
        """Overall light level in (0, 1]: sun height, dimmed by clouds and rain; street-lit night is dim."""
        if self.night:
            return max(0.12, 0.3 * (1.0 - 0.25 * self.cloudiness / 100.0) * (1.0 - 0.3 * self.precipitation / 100.0))
        sun = max(0.05, math.sin(math.radians(max(self.sun_altitude, 0.0))))
        direct = min(1.0, 0.35 + 0.9 * sun)
        return max(0.25, direct * (1.0 - 0.25 * self.cloudiness / 100.0) * (1.0 - 0.2 * self.precipitation / 100.0))

    @property
    def direct_fraction(self) -> float:
        """Share of directional sunlight in the shading (clouds make light diffuse)."""
        return max(0.1, 1.0 - 0.85 * self.cloudiness / 100.0)

    @property
    def tint(self) -> tuple[float, float, float]:
        """Colour multiplier: warm at low sun, bluish-grey in rain, sodium-lamp orange at night."""
        if self.night:
            return (1.05, 0.9, 0.7)
        if self.sun_altitude < 15.0:
            return (1.08, 0.86, 0.72)
        if self.precipitation > 10.0:
            return (0.92, 0.96, 1.04)
        return (1.0, 1.0, 1.0)

    @property
    def visibility(self) -> float:
        """Haze distance (m) where the scene reaches ~63 % of the fog colour."""
        return 700.0 / (1.0 + 0.5 * self.fog_density + 0.06 * self.precipitation)

    @property
    def sky(self) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """Sky colour at the zenith and at the horizon."""
        c = self.cloudiness / 100.0
        if self.night:
            dark = (20, 22, 30) if self.precipitation > 10 else (12, 16, 34)
            return dark, (40, 38, 48)
        if self.sun_altitude < 15.0:
            top, hor = (70, 80, 130), (235, 150, 95)
        else:
            top, hor = (70, 125, 205), (175, 205, 235)
        grey = (150, 155, 162) if self.precipitation > 10 else (185, 188, 195)
        mix = lambda a, b, t: tuple(int(round(x * (1 - t) + y * t)) for x, y in zip(a, b))  # noqa: E731
        k = 0.8 * c
        return mix(top, grey, k), mix(hor, grey, k * 0.8)  # type: ignore[return-value]

    @property
    def fog_color(self) -> tuple[int, int, int]:
        return self.sky[1]


#: The five closed-loop profiles of App. B: (cloud, rain, wetness, fog, sun altitude).
PROFILES: dict[str, WeatherProfile] = {
    "clear_day": WeatherProfile("clear_day", 5, 0, 0, 2, 45),
    "cloudy_day": WeatherProfile("cloudy_day", 75, 0, 0, 3, 55),
    "wet_day": WeatherProfile("wet_day", 65, 0, 70, 5, 35),
    "light_rain": WeatherProfile("light_rain", 85, 25, 80, 4, 40),
    "dusk": WeatherProfile("dusk", 40, 0, 10, 2, 8),
}

#: The App. B controlled environmental extension of the OPEN-LOOP data (never used by the closed-loop
#: suite, hence the ``ext_`` prefix: cloudy and wet day carry other numbers than the closed-loop ones).
EXTENSION_PROFILES: dict[str, WeatherProfile] = {
    "ext_cloudy_day": WeatherProfile("ext_cloudy_day", 80, 0, 0, 5, 35),
    "ext_wet_day": WeatherProfile("ext_wet_day", 75, 35, 70, 10, 30),
    "ext_sunset": WeatherProfile("ext_sunset", 35, 0, 0, 5, 8),
    "ext_clear_night": WeatherProfile("ext_clear_night", 10, 0, 0, 5, -20),
    "ext_rainy_night": WeatherProfile("ext_rainy_night", 90, 35, 80, 15, -15),
}

_ALIASES = {
    "clear": "clear_day", "clearday": "clear_day", "clearnoon": "clear_day",
    "cloudy": "cloudy_day", "cloudyday": "cloudy_day", "cloudynoon": "cloudy_day",
    "wet": "wet_day", "wetday": "wet_day", "wetnoon": "wet_day",
    "lightrain": "light_rain", "softrain": "light_rain", "softrainnoon": "light_rain", "rain": "light_rain",
    "dusk": "dusk", "sunset": "dusk", "clearsunset": "dusk",
}


def weather_profile(name: str) -> WeatherProfile:
    """Profile by name; accepts the canonical names, CARLA-style preset names and case/separator variants."""
    key = name.strip().lower()
    if key in PROFILES:
        return PROFILES[key]
    if key in EXTENSION_PROFILES:
        return EXTENSION_PROFILES[key]
    compact = key.replace("_", "").replace("-", "").replace(" ", "")
    if compact in _ALIASES:
        return PROFILES[_ALIASES[compact]]
    raise WorldError(f"unknown weather {name!r}; known: {sorted(PROFILES) + sorted(EXTENSION_PROFILES)}")


#: Scales of the nearest-profile distance: the CARLA 0-100 parameters by 100, the sun altitude by 90 degrees.
NEAREST_SCALES = {"cloudiness": 100.0, "precipitation": 100.0, "wetness": 100.0, "fog_density": 100.0, "sun_altitude": 90.0}


def nearest_profile(cloudiness: float, precipitation: float, wetness: float, fog_density: float, sun_altitude: float) -> tuple[str, float]:
    """The App. B profile closest to arbitrary CARLA weather numbers, and its distance.

    Distance = Euclidean over the five parameters, each divided by its full scale
    (``NEAREST_SCALES``: 100 for the CARLA percentages, 90 degrees of sun altitude),
    so a full-scale difference in any one parameter counts 1. Ties go to the
    first profile in ``PROFILES`` order. Used to run CARLA route files (any
    ``<weather>``) on the embedded world, which renders the five profiles."""
    given = {"cloudiness": cloudiness, "precipitation": precipitation, "wetness": wetness, "fog_density": fog_density, "sun_altitude": sun_altitude}
    best = ("", math.inf)
    for name, p in PROFILES.items():
        d = math.sqrt(sum(((given[k] - getattr(p, k)) / sc) ** 2 for k, sc in NEAREST_SCALES.items()))
        if d < best[1]:
            best = (name, d)
    return best
