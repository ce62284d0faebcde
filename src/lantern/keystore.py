"""The V2X key store: where the warning path's keys live, their file format, and reading them.

Why a shared convention (bottom layer): the RSU emulator, the channel, the
DENM adapter and the grounding node (``lantern_warning_server``), the agent
(``lantern_agent``) and the evaluator (``lantern_eval``) all read the same
store, resolve it the same way and refuse it for the same reasons. Writing
it (``lantern keys``) and the session's key checks stay with the warning
server (``lantern_warning_server/keys.py``).

Why a store outside git: authentication is on by default (the RSU emulator
signs every HazardNotice, the grounding node refuses anything unsigned, the
agent uses a CooperativeWarning only with the grounding's tag), so every
checkout needs keys, and a key that is committed is a key everybody has.

- path: ``$LANTERN_KEYS`` when set, else ``<repo>/.lantern/v2x_keys.yaml``
  (``.lantern/`` is gitignored);
- created by ``lantern keys init`` (``scripts/setup.sh`` runs it) with fresh
  random keys for the emulated RSU (``rsu-emulated-1``) and the vehicle's own
  grounding -> agent link (``vehicle-onboard``), file mode 0600 in a 0700
  directory; nodes refuse a store that group or others can read.

Key file (YAML)::

    version: 1
    keys:
      rsu-emulated-1: "hex:00112233445566778899aabbccddeeff"
      rsu-town10-7:   "base64:ABEiM0RVZneImaq7zN3u/w=="

Keys are at least 16 bytes.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import stat
from pathlib import Path

import yaml

from lantern import yaml_errors
from lantern.paths import ROOT

ENV_VAR = "LANTERN_KEYS"
#: Sender id of the RSU emulator (config/rsu.yaml sender_id).
EMULATED_RSU = "rsu-emulated-1"
#: Key id of the vehicle-internal grounding -> agent tag (config/grounding.yaml, config/agent.yaml).
ONBOARD = "vehicle-onboard"
#: Keys ``lantern keys init`` generates (and ``--rotate`` regenerates); added keys are never touched.
GENERATED = (EMULATED_RSU, ONBOARD)
MIN_KEY_BYTES = 16


class KeyStoreError(ValueError):
    """The key store (or a key) is missing, malformed, unreadable, too open, or lacks a key a node needs (one line).

    A ``ValueError``, so a session's preflight reports it as a config error
    like every other bad input file.
    """


def fingerprint(key: bytes) -> str:
    """Short public identifier of a key (first 8 bytes of its SHA-256, hex): safe to print or log."""
    return hashlib.sha256(key).hexdigest()[:16]


def encode_key(key: bytes) -> str:
    return "hex:" + key.hex()


def decode_key(value: object, where: str) -> bytes:
    """'hex:...' or 'base64:...' -> key bytes (>= MIN_KEY_BYTES); errors name ``where``."""
    if not isinstance(value, str) or ":" not in value:
        raise KeyStoreError(f"{where} must be a string 'hex:...' or 'base64:...'")
    enc, _, body = value.partition(":")
    try:
        if enc == "hex":
            key = bytes.fromhex(body)
        elif enc == "base64":
            key = base64.b64decode(body, validate=True)
        else:
            raise KeyStoreError(f"{where}: unknown encoding {enc!r} (hex or base64)")
    except (ValueError, binascii.Error) as e:
        if isinstance(e, KeyStoreError):
            raise
        raise KeyStoreError(f"{where}: cannot decode {enc}: {e}") from e
    if len(key) < MIN_KEY_BYTES:
        raise KeyStoreError(f"{where}: key has {len(key)} bytes, at least {MIN_KEY_BYTES} required")
    return key


def load_keys(path: str | Path) -> dict[str, bytes]:
    """Per-sender keys from a key file (format in the module docstring); no permission check."""
    p = Path(path)
    try:
        data = yaml.safe_load(p.read_text())
    except FileNotFoundError as e:
        raise KeyStoreError(f"{p}: key file not found") from e
    except IsADirectoryError as e:
        raise KeyStoreError(f"{p}: is a directory, not a key store file") from e
    except yaml.YAMLError as e:
        raise KeyStoreError(f"{p}: {yaml_errors.describe(e)}") from e
    except (OSError, UnicodeDecodeError) as e:
        raise KeyStoreError(f"{p}: cannot read key file: {e.strerror if isinstance(e, OSError) else e}") from e
    if not isinstance(data, dict) or data.get("version") != 1:
        raise KeyStoreError(f"{p}: must be a mapping with 'version: 1'")
    keys = data.get("keys")
    if not isinstance(keys, dict) or not keys:
        raise KeyStoreError(f"{p}: field 'keys' must be a non-empty mapping sender_id -> key")
    return {str(s): decode_key(v, f"{p}: keys.{s}") for s, v in keys.items()}


def default_store() -> Path:
    """``$LANTERN_KEYS``, else ``<repo>/.lantern/v2x_keys.yaml``."""
    env = os.environ.get(ENV_VAR, "")
    if env:
        return Path(env).expanduser()
    return ROOT / ".lantern" / "v2x_keys.yaml"


def resolve(path_param: str) -> Path:
    """A node's ``auth_key_file`` parameter -> the file to read ('' = the default store)."""
    return Path(path_param).expanduser() if path_param else default_store()


def load_store(path: str | Path, need: str = "") -> dict[str, bytes]:
    """Keys of the store at ``path``; ``need`` names who needs it, for the error line."""
    p = Path(path)
    why = f" ({need})" if need else ""
    if p.is_dir():
        raise KeyStoreError(
            f"V2X key store {p} is a directory, not a key store file{why}: give the store's YAML file "
            f"(e.g. {p / 'v2x_keys.yaml'}; `lantern keys init --store FILE` creates one) or set {ENV_VAR} to it"
        )
    if not p.is_file():
        raise KeyStoreError(
            f"V2X key store {p} not found{why}: create it with `lantern keys init` (scripts/setup.sh runs it), "
            f"or set {ENV_VAR} to an existing store"
        )
    st = p.stat()
    mode = stat.S_IMODE(st.st_mode)
    if mode & 0o077:
        raise KeyStoreError(f"V2X key store {p} has permissions {mode:04o}, readable by others: run `chmod 600 {p}`")
    # a session reads the store a dozen times (preflight, every node, every tag check): parsed once per
    # version of the file (its inode, size and change times: a rewritten or replaced store is read again)
    version = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    cached = _PARSED.get(str(p))
    if cached is None or cached[0] != version:
        cached = _PARSED[str(p)] = (version, load_keys(p))
    return dict(cached[1])


_PARSED: dict[str, tuple[tuple[int, ...], dict[str, bytes]]] = {}


def require_key(keys: dict[str, bytes], key_id: str, path: Path, need: str) -> bytes:
    """``keys[key_id]``, else a ``KeyStoreError`` that says how to get that key."""
    key = keys.get(key_id)
    if key is None:
        hint = "run `lantern keys init`" if key_id in GENERATED else f"add it with `lantern keys add --sender {key_id} --key hex:...`"
        raise KeyStoreError(f"V2X key store {path} has no key {key_id!r} ({need}): {hint}")
    return key


def load_key(path_param: str, key_id: str, need: str) -> bytes:
    """One key from the store a node's ``auth_key_file`` parameter names ('' = default store)."""
    path = resolve(path_param)
    return require_key(load_store(path, need), key_id, path, need)
