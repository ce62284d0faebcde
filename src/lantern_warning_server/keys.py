"""Managing the V2X key store (``lantern keys``) and checking a session's keys before it starts.

Where the store lives, its format and how nodes read it is the shared
convention ``lantern.keystore`` (the agent and the evaluator read it too);
this module writes it and checks a session against it:

- ``lantern keys init`` (``scripts/setup.sh`` runs it) creates the store with
  fresh random keys for the emulated RSU (``rsu-emulated-1``) and the
  vehicle's own grounding -> agent link (``vehicle-onboard``), file mode 0600
  in a 0700 directory;
- a real RSU's key is added with ``lantern keys add --sender ID --key hex:...``;
  ``lantern keys list`` shows fingerprints only, never keys.

``bind_session`` gives the session's signers and verifiers its fresh nonce
(``lantern.session_binding``: tags of another session do not verify).
``check_session`` runs before a session starts (``lantern run``, ``lantern
suite``): a missing store or key where a node needs one is one config error
line that says how to create it, never a silent fallback to no
authentication. Opting out is explicit (``auth_required: false`` in
config/grounding.yaml, ``warning_auth_required: false`` in config/agent.yaml and config/eval.yaml)
and those nodes log it as a warning.
"""

from __future__ import annotations

import argparse
import os
import secrets
import stat
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import yaml

from lantern import session_binding
from lantern.cli_args import ArgumentParser
from lantern.keystore import EMULATED_RSU, ENV_VAR, GENERATED, ONBOARD, KeyStoreError, decode_key, default_store, encode_key, fingerprint, load_store, require_key, resolve

#: Bytes of a key ``lantern keys init`` generates.
KEY_BYTES = 32
HEADER = (
    "# lantern V2X key store: SECRET (mode 0600, never commit). Managed with `lantern keys`;\n"
    "# format: src/lantern/keystore.py. Generated keys: " + ", ".join(GENERATED) + ".\n"
)


# -- writing -------------------------------------------------------------------------------------

def _write(path: Path, keys: dict[str, bytes]) -> None:
    """Atomically (re)write the store, mode 0600, its directory 0700 when we create it."""
    if not path.parent.exists():
        path.parent.mkdir(parents=True, mode=0o700)
    body = yaml.safe_dump({"version": 1, "keys": {k: encode_key(v) for k, v in sorted(keys.items())}}, sort_keys=False)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(HEADER + body)
        os.chmod(tmp, 0o600)  # whatever the umask did
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _existing(path: Path) -> dict[str, bytes]:
    return load_store(path) if path.exists() else {}


def init_store(path: Path, rotate: bool = False) -> list[str]:
    """Create the store (or add its missing generated keys); returns the key ids written."""
    keys = _existing(path)
    made = [k for k in GENERATED if rotate or k not in keys]
    for k in made:
        keys[k] = secrets.token_bytes(KEY_BYTES)
    if made or not path.exists():
        _write(path, keys)
    return made


def add_key(path: Path, sender: str, key_text: str, replace: bool = False) -> bytes:
    """Add a (real RSU's) key; refuses to overwrite an existing id unless ``replace``."""
    from lantern_warning_server.grounding import is_valid_id

    if not is_valid_id(sender):
        raise KeyStoreError(f"--sender {sender!r}: must be 1-64 characters of A-Z a-z 0-9 _ . : / - (the HazardNotice sender_id)")
    key = decode_key(key_text, "--key")
    keys = _existing(path)
    if sender in keys and not replace:
        raise KeyStoreError(f"V2X key store {path} already has a key for {sender!r} (fingerprint {fingerprint(keys[sender])}): add --replace to replace it")
    keys[sender] = key
    _write(path, keys)
    return key


def remove_key(path: Path, sender: str) -> None:
    keys = load_store(path)
    if sender not in keys:
        raise KeyStoreError(f"V2X key store {path} has no key {sender!r}")
    del keys[sender]
    _write(path, keys)


# -- session preflight -----------------------------------------------------------------------------

def _needs(executable: str, p: dict[str, Any]) -> list[tuple[str, str]]:
    """(key id, why) a node needs, from its merged parameters; defaults match the nodes' own."""
    if executable == "lantern-rsu" and p.get("sign_notices", True):
        return [(str(p.get("sender_id", EMULATED_RSU)), "the RSU emulator signs its notices")]
    if executable == "lantern-grounding":
        out = []
        if p.get("auth_required", True):
            out.append(("", "the grounding node requires authenticated notices (auth_required)"))
        if p.get("sign_warnings", True):
            out.append((str(p.get("warning_key_id", ONBOARD)), "the grounding node tags /lantern/warning (sign_warnings)"))
        return out
    if executable == "lantern-agent" and p.get("warning_auth_required", True):
        return [(str(p.get("warning_key_id", ONBOARD)), "the agent verifies /lantern/warning (warning_auth_required)")]
    if executable == "lantern-eval" and p.get("warning_auth_required", True):
        return [(str(p.get("warning_key_id", ONBOARD)), "the eval node checks /lantern/warning tags (warning_auth_required)")]
    if executable == "lantern-channel" and p.get("resign_altered", True):
        return [("", "the channel re-signs altered notices (resign_altered)")]
    return []


#: Nodes of a session that sign or verify V2X tags, so share its binding (``lantern.session_binding``).
BOUND_EXECUTABLES = ("lantern-rsu", "lantern-channel", "lantern-grounding", "lantern-agent", "lantern-denm-adapter")


def bind_session(decls: Iterable[Any], nonce: str) -> None:
    """Give every signing / verifying node of the session the session's nonce (parameter ``session_nonce``).

    Called by ``session_nodes`` with a fresh nonce per session; an explicit
    override of a node's ``session_nonce`` (a test's) is kept, and
    ``check_session`` then refuses a session whose nodes disagree. The eval node
    reads the nonce from the run metadata instead.
    """
    session_binding.check_nonce(nonce)
    for d in decls:
        if d.executable in BOUND_EXECUTABLES:
            d.overrides.setdefault(session_binding.PARAM, nonce)


def _check_binding(by_exe: dict[str, dict[str, Any]]) -> None:
    """Every signer and verifier of a session must use the same, well-formed session nonce (one line)."""
    from lantern_warning_server.errors import ConfigError

    seen: dict[str, str] = {}
    for exe, p in by_exe.items():
        if exe in BOUND_EXECUTABLES:
            try:
                seen[exe] = session_binding.check_nonce(p.get(session_binding.PARAM, ""), f"{exe}: parameter {session_binding.PARAM}")
            except ValueError as e:
                raise ConfigError(str(e)) from None
    if len(set(seen.values())) > 1:
        raise ConfigError("the session's nodes disagree on session_nonce (" + ", ".join(f"{k}={v or '(unbound)'}" for k, v in sorted(seen.items()))
                          + "): every V2X tag would fail verification; leave session_nonce to `lantern run`")


def check_session(decls: Iterable[Any]) -> None:
    """Raise ``KeyStoreError`` (one line) when a node of the session will not find its key.

    ``decls`` are ``lantern_bringup.session.NodeDecl``-like (executable, name, params_files, overrides).
    """
    from lantern.ros.params import load_yaml_params

    by_exe: dict[str, dict[str, Any]] = {}
    for d in decls:
        params: dict[str, Any] = {}
        for f in d.params_files:
            params.update(load_yaml_params(f, d.name))
        params.update(d.overrides)
        by_exe[d.executable] = params
        if d.executable == "lantern-grounding":
            _check_gate_params(params)
        for key_id, why in _needs(d.executable, params):
            path = resolve(str(params.get("auth_key_file", "")))
            keys = load_store(path, why)
            if key_id:
                require_key(keys, key_id, path, why)
    _check_pairing(by_exe)
    _check_binding(by_exe)


def _check_pairing(p: dict[str, dict[str, Any]]) -> None:
    """Settings that cannot work together: one line instead of a stalled or silently empty run."""
    from lantern_warning_server.errors import ConfigError

    g, a, r, e = p.get("lantern-grounding"), p.get("lantern-agent"), p.get("lantern-rsu"), p.get("lantern-eval")
    if g is not None and a is not None and a.get("warning_auth_required", True) and not g.get("sign_warnings", True):
        raise ConfigError("lantern_agent requires tagged warnings (warning_auth_required: true) but lantern_grounding does not tag them "
                          "(sign_warnings: false): the agent would wait for every frame's warning forever; set both or opt out of both")
    if g is not None and e is not None and e.get("warning_auth_required", True) and not g.get("sign_warnings", True):
        raise ConfigError("lantern_eval requires tagged warnings (warning_auth_required: true) but lantern_grounding does not tag them "
                          "(sign_warnings: false): every warning would be left out of the score; set both or opt out of both")
    if g is not None and r is not None and g.get("auth_required", True) and not r.get("sign_notices", True) and r.get("condition", "warning") == "warning":
        raise ConfigError("lantern_grounding requires signed notices (auth_required: true) but lantern_rsu does not sign them "
                          "(sign_notices: false): every warning would be rejected; set both or opt out of both")


def _check_gate_params(p: dict[str, Any]) -> None:
    """The grounding's gate and flood bounds, as the node will build them (ConfigError names the parameter)."""
    from lantern_warning_server.errors import ConfigError
    from lantern_warning_server.grounding import GateConfig, NoticeInbox

    names = ("max_age", "future_tolerance", "free_text_policy", "max_text_length", "max_abs_coordinate", "max_range", "expected_frame_id", "max_rate")
    try:
        GateConfig(**{k: p[k] for k in names if k in p})
        NoticeInbox(int(p.get("max_queue_per_sender", 64)), int(p.get("max_queue", 1024)))
    except (TypeError, ValueError) as e:
        raise ConfigError(f"lantern_grounding: {e}") from None
    if int(p.get("max_rejection_reports", 32)) < 0:
        raise ConfigError(f"lantern_grounding: max_rejection_reports must be >= 0, got {p['max_rejection_reports']}")


# -- `lantern keys` --------------------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--store", metavar="FILE", default=argparse.SUPPRESS, help=f"key store (default: ${ENV_VAR}, else <repo>/.lantern/v2x_keys.yaml)")
    ap = ArgumentParser(prog="lantern keys", description="V2X key store: HMAC keys of RSUs and of the vehicle's grounding -> agent link.", parents=[common])
    sub = ap.add_subparsers(dest="action", required=True, parser_class=ArgumentParser, metavar="{init,add,remove,list,path}")
    p = sub.add_parser("init", parents=[common], help="create the store with fresh keys (keeps an existing store; adds missing generated keys)")
    p.add_argument("--rotate", action="store_true", help=f"regenerate {', '.join(GENERATED)} (added keys are kept)")
    p.add_argument("--quiet", action="store_true", help="print nothing when the store is already complete")
    p = sub.add_parser("add", parents=[common], help="add a real RSU's key: --sender ID --key hex:...|base64:...")
    p.add_argument("--sender", required=True, help="the RSU's HazardNotice sender_id (DENM: denm-<station id>)")
    p.add_argument("--key", required=True, help="'hex:...' or 'base64:...', at least 16 bytes")
    p.add_argument("--replace", action="store_true", help="replace an existing key of this sender")
    p = sub.add_parser("remove", parents=[common], help="remove a sender's key")
    p.add_argument("--sender", required=True)
    sub.add_parser("list", parents=[common], help="sender ids and key fingerprints (never the keys)")
    sub.add_parser("path", parents=[common], help="print the store's path")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    a = _parser().parse_args(argv)
    store = getattr(a, "store", None)
    path = Path(store).expanduser() if store else default_store()
    try:
        if a.action == "path":
            print(path)
        elif a.action == "init":
            existed = path.exists()
            made = init_store(path, rotate=a.rotate)
            if made or not a.quiet:
                what = "created" if not existed else ("rotated" if a.rotate else ("added keys to" if made else "up to date:"))
                print(f"{what} {path}" + (f" ({', '.join(made)})" if made else ""))
        elif a.action == "add":
            key = add_key(path, a.sender, a.key, a.replace)
            print(f"added {a.sender} (fingerprint {fingerprint(key)}) to {path}")
        elif a.action == "remove":
            remove_key(path, a.sender)
            print(f"removed {a.sender} from {path}")
        else:
            keys = load_store(path)
            print(f"{path} (mode {stat.S_IMODE(path.stat().st_mode):04o}, {len(keys)} keys)")
            for sender, key in sorted(keys.items()):
                print(f"  {sender:<24} {len(key):>3} bytes  fingerprint {fingerprint(key)}")
    except KeyStoreError as e:
        print(f"lantern keys: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"lantern keys: {path}: {e.strerror or e}", file=sys.stderr)
        return 2
    return 0
