"""Training features of the version-2 policy: the shared feature cache, counterexample rows, MiniLM token states.

Why a second source: layout 2 (``inputs.py``) drops the presence numbers and
reads the text through a trained head (``model.TokenTextHead``), and its
training set adds App. H counterexamples (``counterexamples.py``). None of
that needs new image features: a counterexample row reuses a dataset row's
cached image features and expert waypoints (the expert drove normally there)
with another text and position, so the version-1 cache (``cache.py``) is
reused as it is, and only the token states of the distinct texts are computed
(once, cached beside it, keyed by the text list and the encoder).

Which rows get a counterexample is seeded (``TrainConfig.seed``): rows with no
active warning that the mixture uses (Route B, Route A of the warning
condition before onset or after the warning) each get one with probability
``counterexample_fraction``, drawn from a pool of ``COUNTEREXAMPLE_POOL``
statements. A counterexample row keeps its source row's sequence id, so the
validation split (by sequence) keeps both on the same side.

Paraphrase rows (``--paraphrases``, off by default) are the mirror image: a
warning-active row again, with probability ``paraphrase_fraction``, under
another wording of its family's warning (``training_wordings.py``) with the
same grounded position, printed as the row's own text printed it (or no
position at all, for a wording that names none). The dataset holds one
sentence per family, so without them the head learns six exact sentences
(issue 19: held-out paraphrases kept 52 % of the canonical CUS). Their draws
come from a generator of their own, so the counterexample rows are the same
with or without them.

Far-warning rows (``--far-warnings``, off by default) are counterexamples of
kind ``far_warning``: a no-warning row with its family's warning sentence (the
dataset's own, its printed position swapped) placed 90-200 m ahead, labelled
with the expert's normal driving there.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from lantern_agent.learned import counterexamples as cx
from lantern_agent.learned import data as ds
from lantern_agent.learned import ignore_statements as ig
from lantern_agent.learned import offpath_notices as op
from lantern_agent.learned import training_wordings as tw
from lantern_agent.learned.cache import TrainableRows
from lantern_agent.learned.encoders import TEXT_TOKENS, EncoderIdentity, TextEncoder, cache_root
from lantern_agent.learned.history import history_indices, reads_history, standstill_indices
from lantern_agent.learned.inputs import V2_FROM_V1, position_features, row_speeds
from lantern_agent.learned.model import EMPTY_TEXT_FILE, EMPTY_TOKENS_FILE, Policy, save_policy
from lantern_agent.learned.source import LearnedSource, image_rows

#: distinct counterexample statements per training run (rows draw from them; more would only cost token states)
COUNTEREXAMPLE_POOL = 600


@dataclass
class FeatureCacheV2(TrainableRows):
    """Rows of the mixture's source cache plus counterexample rows, with layout-2 inputs."""

    image: np.ndarray  # (N0, 3840) float16, memory-mapped: the source cache's rows
    base_index: np.ndarray  # (N,) row of ``image`` each row uses
    text_index: np.ndarray  # (N,) into tokens / token_mask
    tokens: np.ndarray  # (U, T, 384) float16
    token_mask: np.ndarray  # (U, T) float32
    numeric: np.ndarray  # (N, NUM_NUMERIC_V2) float32
    counterexample: np.ndarray  # (N,) bool
    counterexample_kind: list[str]
    paraphrase: np.ndarray | None = None  # (N,) bool: a warning row again under a training wording; None: none drawn
    past_index: np.ndarray | None = None  # (N,) row of ``image`` the frame history reads (``history.py``); None: no history
    image_map: np.ndarray | None = None  # (N0, 112, H/16, W/16) float16: the source cache's stride-16 maps (``--image-map``)


def token_states(texts: list[str], encoder: TextEncoder, base: Path | None) -> tuple[np.ndarray, np.ndarray]:
    """Token states of ``texts`` (float16) and their masks, cached under ``base`` by text list and encoder identity."""
    key = hashlib.sha256(json.dumps([EncoderIdentity.current().key(), TEXT_TOKENS, texts]).encode()).hexdigest()[:20]
    path = (base or cache_root() / "features") / f"tokens-{key}.npz"
    if path.is_file():
        with np.load(path) as z:
            return z["tokens"], z["mask"]
    states, mask = encoder.tokens(texts)
    states16 = states.astype(np.float16)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tokens-", suffix=".npz", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, tokens=states16, mask=mask)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return states16, mask


def with_counterexamples(cache: Any, texts: list[str], fraction: float, seed: int) -> tuple[dict[str, Any], list[str]]:
    """The extended rows (as ``FeatureCacheV2`` fields but the token arrays) and the extended text list."""
    n0 = len(cache)
    kind, cond = np.asarray(cache.route_kind), np.asarray(cache.condition)
    eligible = np.nonzero(~cache.warning_active & ((kind == "B") | ((kind == "A") & (cond == "warning"))))[0]
    rng = np.random.default_rng([seed, 1919])
    chosen = eligible[rng.random(len(eligible)) < fraction]
    statements = cx.pool(seed, min(COUNTEREXAMPLE_POOL, max(1, len(chosen))))
    pick = rng.integers(0, len(statements), size=len(chosen))
    all_texts = list(texts) + [s.text for s in statements]
    numeric0 = np.asarray(cache.numeric, dtype=np.float32)[:, list(V2_FROM_V1)]
    num_ce = numeric0[chosen].copy()
    for r, j in enumerate(pick):
        p = statements[j].position
        num_ce[r, -2:] = position_features(p) if p is not None else 0.0
    fields = {
        "waypoints": np.concatenate([cache.waypoints, cache.waypoints[chosen]]),
        "sequence_id": list(cache.sequence_id) + [cache.sequence_id[i] for i in chosen],
        "route_kind": list(cache.route_kind) + [cache.route_kind[i] for i in chosen],
        "condition": list(cache.condition) + [cache.condition[i] for i in chosen],
        "family": list(cache.family) + [cache.family[i] for i in chosen],
        "warning_active": np.concatenate([cache.warning_active, np.zeros(len(chosen), bool)]),
        "crosses_termination": np.concatenate([cache.crosses_termination, np.zeros(len(chosen), bool)]),
        "key": f"{cache.key}+cx{fraction:g}-s{seed}",
        "image": cache.image,
        "image_map": cache.image_map,
        "base_index": np.concatenate([np.arange(n0), chosen]).astype(np.int64),
        "text_index": np.concatenate([np.asarray(cache.text_index), len(texts) + pick]).astype(np.int64),
        "numeric": np.concatenate([numeric0, num_ce]),
        "counterexample": np.concatenate([np.zeros(n0, bool), np.ones(len(chosen), bool)]),
        "counterexample_kind": [""] * n0 + [statements[j].kind for j in pick],
    }
    return fields, all_texts


#: the grounded position as the template library prints it into a warning (``position_format`` "({x:.1f}, {y:.1f})")
_PRINTED_POSITION = re.compile(r"\(-?\d+(?:\.\d+)?, -?\d+(?:\.\d+)?\)")


def _quiet_rows(fields: dict[str, Any]) -> np.ndarray:
    """Rows the counterexamples draw from (no active warning, Route B or Route A of the warning condition), not
    counterexamples themselves: the expert drives normally there, whatever the statement says."""
    kind, cond = np.asarray(fields["route_kind"]), np.asarray(fields["condition"])
    return ~np.asarray(fields["warning_active"]) & ~np.asarray(fields["counterexample"]) & ((kind == "B") | ((kind == "A") & (cond == "warning")))


def _with_statements(fields: dict[str, Any], texts: list[str], rows: np.ndarray, statements: Sequence[str], numeric: np.ndarray,
                     kind: str, key: str) -> tuple[dict[str, Any], list[str]]:
    """``fields`` with ``rows`` appended again as counterexamples of ``kind`` reading ``statements`` (one per row) with
    the ``numeric`` inputs given; the extended texts (each new statement once)."""
    new_texts: dict[str, int] = {}
    pick_index = [len(texts) + new_texts.setdefault(t, len(new_texts)) for t in statements]
    out = _appended(fields, rows)
    out.update(key=f"{fields['key']}+{key}", numeric=np.concatenate([fields["numeric"], numeric]),
               text_index=np.concatenate([np.asarray(fields["text_index"]), np.asarray(pick_index, dtype=np.int64)]),
               counterexample=np.concatenate([np.asarray(fields["counterexample"]), np.ones(len(rows), bool)]),
               counterexample_kind=list(fields["counterexample_kind"]) + [kind] * len(rows))
    return out, list(texts) + list(new_texts)


def with_far_warnings(fields: dict[str, Any], texts: list[str], fraction: float, seed: int) -> tuple[dict[str, Any], list[str]]:
    """``fields`` plus, for each no-warning row the counterexamples draw from with probability ``fraction``, the same row
    with its family's warning sentence at a far position (a counterexample of kind ``far_warning``); the extended texts."""
    text_index = np.asarray(fields["text_index"])
    family = list(fields["family"])
    active, ce = np.asarray(fields["warning_active"]), np.asarray(fields["counterexample"])
    sentence: dict[str, str] = {}
    for i in np.nonzero(active & ~ce)[0]:  # the family's sentence, as the dataset's warning rows hold it
        if family[i] not in sentence and (m := _PRINTED_POSITION.search(texts[text_index[i]])):
            sentence[family[i]] = texts[text_index[i]].replace(m.group(0), "{pos}", 1)
    eligible = np.nonzero(_quiet_rows(fields) & np.array([f in sentence for f in family], bool))[0]
    rng = np.random.default_rng([seed, 4747])
    chosen = eligible[rng.random(len(eligible)) < fraction]
    statements: list[str] = []
    num = np.asarray(fields["numeric"], dtype=np.float32)[chosen].copy()
    for r, i in enumerate(chosen):
        p = cx.position("far", rng)
        num[r, -2:] = position_features(p)
        statements.append(sentence[family[i]].replace("{pos}", cx.format_position(p)))
    return _with_statements(fields, texts, chosen, statements, num, "far_warning", f"far{fraction:g}")


def with_offpath_notices(fields: dict[str, Any], texts: list[str], fraction: float, seed: int) -> tuple[dict[str, Any], list[str]]:
    """``fields`` plus, for each no-warning row the counterexamples draw from with probability ``fraction``, the same row
    with a warning-styled notice about activity outside the driving path (``offpath_notices.NOTICES``, no position; a
    counterexample of kind ``offpath``); the extended texts."""
    return _with_positionless(fields, texts, fraction, [seed, 1313], op.NOTICES, "offpath", f"op{fraction:g}")


def with_ignore_statements(fields: dict[str, Any], texts: list[str], fraction: float, seed: int) -> tuple[dict[str, Any], list[str]]:
    """As ``with_offpath_notices``, with a negated or irrelevant statement (``ignore_statements.STATEMENTS``; kind
    ``statement``). Why a pool of its own: ``counterexamples.py`` holds 8 negated templates and 8 irrelevant sentences,
    and checkpoints trained on them misread a different unseen one from seed to seed."""
    return _with_positionless(fields, texts, fraction, [seed, 1717], ig.STATEMENTS, "statement", f"is{fraction:g}")


def _with_positionless(fields: dict[str, Any], texts: list[str], fraction: float, rng_seed: list[int], pool: Sequence[str],
                       kind: str, key: str) -> tuple[dict[str, Any], list[str]]:
    """Quiet rows drawn with probability ``fraction``, again with a statement of ``pool`` that names no position."""
    eligible = np.nonzero(_quiet_rows(fields))[0]
    rng = np.random.default_rng(rng_seed)
    chosen = eligible[rng.random(len(eligible)) < fraction]
    pick = rng.integers(0, len(pool), size=len(chosen))
    num = np.asarray(fields["numeric"], dtype=np.float32)[chosen].copy()
    num[:, -2:] = 0.0  # the statement names no position: the live agent gets none either
    return _with_statements(fields, texts, chosen, [pool[j] for j in pick], num, kind, key)


def _appended(fields: dict[str, Any], rows: np.ndarray) -> dict[str, Any]:
    """``fields`` with ``rows`` appended again to every per-row field (the caller replaces what the new rows change)."""
    out = dict(fields)
    for name in ("waypoints", "sequence_id", "route_kind", "condition", "family", "warning_active", "crosses_termination", "base_index",
                 "counterexample", "counterexample_kind", "paraphrase"):
        v = fields.get(name)
        if v is not None:
            out[name] = list(v) + [v[i] for i in rows] if isinstance(v, list) else np.concatenate([v, np.asarray(v)[rows]])
    return out


def with_paraphrases(fields: dict[str, Any], texts: list[str], fraction: float, seed: int) -> tuple[dict[str, Any], list[str]]:
    """``fields`` (``with_counterexamples``' rows) plus, for each warning-active dataset row with probability
    ``fraction``, the same row under a training wording of its family; the extended text list."""
    text_index = np.asarray(fields["text_index"])
    family = list(fields["family"])
    eligible = np.nonzero(np.asarray(fields["warning_active"]) & ~np.asarray(fields["counterexample"])
                          & np.array([f in tw.WORDINGS for f in family], bool))[0]
    rng = np.random.default_rng([seed, 2606])
    chosen = eligible[rng.random(len(eligible)) < fraction]
    new_texts: dict[str, int] = {}
    pick_index: list[int] = []
    numeric = np.asarray(fields["numeric"], dtype=np.float32)
    num_pp = numeric[chosen].copy()
    for r, i in enumerate(chosen):
        printed = _PRINTED_POSITION.search(texts[text_index[i]])
        options = (tw.positioned(family[i]) if printed else ()) + tw.positionless(family[i])
        wording = options[int(rng.integers(len(options)))]
        if tw.PLACEHOLDER in wording:
            wording = wording.replace(tw.PLACEHOLDER, printed.group(0))  # type: ignore[union-attr]
        else:
            num_pp[r, -2:] = 0.0  # a wording that names no position: the live agent gets none either
        pick_index.append(len(texts) + new_texts.setdefault(wording, len(new_texts)))
    n = len(fields["sequence_id"])
    out = _appended(fields, chosen)
    out.update(key=f"{fields['key']}+pp{fraction:g}", numeric=np.concatenate([numeric, num_pp]),
               text_index=np.concatenate([text_index, np.asarray(pick_index, dtype=np.int64)]),
               paraphrase=np.concatenate([np.zeros(n, bool), np.ones(len(chosen), bool)]))
    return out, list(texts) + list(new_texts)


def past_rows(infos: Sequence[ds.DatasetInfo], sequence_id: Sequence[str], cfg: Any, speed: np.ndarray) -> np.ndarray:
    """Per row of the (concatenated) layout-1 cache: the row whose image features its frame history reads
    (``cfg.history_anchor``'s rule; ``speed``: each row's ego speed in m/s)."""
    from lantern_agent.learned.cache import cached_frames

    seqs: list[str] = []
    frames: list[int] = []
    for k, info in enumerate(infos):  # a sequence id is unique within a dataset only: key it by the dataset too
        s, f = cached_frames(info)
        seqs += [f"{k}/{x}" for x in s]
        frames += f
    if [x.split("/", 1)[1] for x in seqs] != list(sequence_id):
        raise ds.DatasetError("frame history: the datasets' rows no longer match their feature cache (rebuild it: delete the cache directory)")
    if cfg.history_anchor == "standstill":
        return standstill_indices(seqs, frames, speed, cfg.history_max_speed)
    return history_indices(seqs, frames, cfg.history_frames)


class TokenLookup(nn.Module):
    """The policy with the token table attached, so a batch carries text indices instead of (T, 384) per row."""

    def __init__(self, policy: Policy, tokens: np.ndarray, mask: np.ndarray) -> None:
        super().__init__()
        self.policy = policy
        self.tokens = torch.from_numpy(np.ascontiguousarray(tokens))  # float16, converted per batch
        self.mask = torch.from_numpy(np.ascontiguousarray(mask, dtype=np.float32))

    def forward(self, img: torch.Tensor, text_index: torch.Tensor, num: torch.Tensor, *extra: torch.Tensor) -> torch.Tensor:
        """``extra``: the history frame's features when the policy reads a history, then the stride-16 map when it
        reads one (``LearnedSourceV2.inputs``' order)."""
        cfg = self.policy.cfg
        past = extra[0] if cfg.reads_history else None
        fmap = extra[-1] if cfg.image_map else None
        return self.policy(img, self.tokens[text_index].float(), num, self.mask[text_index], past, fmap)

    def state_dict(self, *args: Any, **kwargs: Any) -> dict[str, Any]:  # noqa: D102 (resume: the policy's weights only)
        return self.policy.state_dict(*args, **kwargs)

    def load_state_dict(self, state: Any, strict: bool = True, assign: bool = False) -> Any:  # noqa: D102
        return self.policy.load_state_dict(state, strict=strict, assign=assign)


class LearnedSourceV2(LearnedSource):
    """Layout 2: the shared feature cache + counterexample rows + token states -> ``Policy(inputs=2)``."""

    def state_key(self) -> str:
        return "learned-v2"

    def build_many(self, infos: Sequence[ds.DatasetInfo], cfg: Any, cache_base: Path | None, progress: Callable[[int], None]) -> tuple[FeatureCacheV2, bool]:  # type: ignore[override]
        cache, built = super().build_many(infos, cfg, cache_base, progress)  # the layout-1 caches, reused as they are
        fields, all_texts = with_counterexamples(cache, cache.texts, cfg.counterexample_fraction, cfg.seed)
        if cfg.far_warning_fraction > 0:
            fields, all_texts = with_far_warnings(fields, all_texts, cfg.far_warning_fraction, cfg.seed)
        if cfg.offpath_fraction > 0:
            fields, all_texts = with_offpath_notices(fields, all_texts, cfg.offpath_fraction, cfg.seed)
        if cfg.ignore_statement_fraction > 0:
            fields, all_texts = with_ignore_statements(fields, all_texts, cfg.ignore_statement_fraction, cfg.seed)
        if cfg.paraphrase_fraction > 0:
            fields, all_texts = with_paraphrases(fields, all_texts, cfg.paraphrase_fraction, cfg.seed)
        tokens, mask = token_states(all_texts, self.text_enc, cache_base)
        past = None
        if reads_history(cfg.history_frames, cfg.history_anchor):
            past = past_rows(infos, cache.sequence_id, cfg, row_speeds(cache.numeric))[fields["base_index"]]
        return FeatureCacheV2(**fields, tokens=tokens, token_mask=mask, past_index=past), built

    def inputs(self, cache: FeatureCacheV2, rows: np.ndarray) -> tuple[torch.Tensor, ...]:
        img = image_rows(cache.image, cache.base_index[rows])
        out: tuple[torch.Tensor, ...] = (img, torch.from_numpy(cache.text_index[rows]), torch.from_numpy(cache.numeric[rows]))
        if cache.past_index is not None:
            out = (*out, image_rows(cache.image, cache.past_index[rows]))
        if self.cfg.image_map:
            out = (*out, image_rows(cache.image_map, cache.base_index[rows], np.float16))
        return out

    def make_model(self, cache: FeatureCacheV2) -> TokenLookup:
        head = self.head_config(inputs=2, history_frames=self.cfg.history_frames, history_max_speed=self.cfg.history_max_speed,
                                history_anchor=self.cfg.history_anchor, image_map=self.cfg.image_map)
        return TokenLookup(Policy(head), cache.tokens, cache.token_mask)

    def save(self, model: torch.nn.Module, out: Path, manifest: dict[str, Any]) -> None:
        from lantern.file_integrity import atomic_write

        out.mkdir(parents=True, exist_ok=True)
        states, mask = self.text_enc.tokens([""])

        def write_empty(tmp: Path) -> None:
            with open(tmp, "wb") as f:
                np.savez(f, tokens=states[0].astype(np.float32), mask=mask[0])

        atomic_write(out / EMPTY_TOKENS_FILE, write_empty)  # before the manifest, which hashes it
        stale = out / EMPTY_TEXT_FILE
        if stale.exists():
            stale.unlink()
        save_policy(model.policy if isinstance(model, TokenLookup) else model, out, manifest)  # type: ignore[arg-type]

    def manifest(self) -> dict[str, Any]:
        ident = EncoderIdentity.current()
        return {"encoders": {**ident.__dict__, "image_pool": list(ident.image_pool)}, "text_head": "minilm-token-states+attention",
                "counterexample_pool": COUNTEREXAMPLE_POOL}
