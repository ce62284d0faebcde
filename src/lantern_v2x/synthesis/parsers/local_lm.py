"""Lambda over a local transformers causal LM loaded from a directory (no network: ``local_files_only=True``).

Greedy decoding (deterministic for a given model and prompt), then the JSON
extraction step (``base.extract_json``: the first balanced object in the
generated text) and schema validation. A small or untuned model mostly
produces no valid JSON; that is a failed attempt with the reason recorded and
fed back by the parse loop, never a crash. ``torch``/``transformers`` are
imported only when this parser is built (requirements-ml.txt).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Optional, Sequence

from lantern_v2x.synthesis.parsers.base import ParseAttempt, ParserConfigError, build_messages, spec_from_text
from lantern_v2x.synthesis.spec import ScenarioSpec, SpecError


class LocalLmParser:
    """A transformers causal LM from ``model_dir``; ``max_new_tokens`` bounds each answer."""

    def __init__(self, model_dir: str | Path, max_new_tokens: int = 768, seed: int = 0) -> None:
        d = Path(model_dir)
        if not d.is_dir():
            raise ParserConfigError(f"local model: {d} is not a directory")
        if not (d / "config.json").is_file():
            raise ParserConfigError(f"local model: {d} has no config.json (save it with save_pretrained)")
        if max_new_tokens < 1:
            raise ParserConfigError(f"local model: max_new_tokens must be >= 1, got {max_new_tokens}")
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as e:  # pragma: no cover - the ML extras are in requirements-ml.txt
            raise ParserConfigError(f"local model: transformers/torch not installed ({e}); pip install -r requirements-ml.txt") from None
        try:
            self._tok = AutoTokenizer.from_pretrained(str(d), local_files_only=True)
            self._model = AutoModelForCausalLM.from_pretrained(str(d), local_files_only=True)
        except (OSError, ValueError) as e:
            raise ParserConfigError(f"local model: cannot load {d}: {' '.join(str(e).split())[:200]}") from None
        self._model.eval()
        self._torch = torch
        self.model_dir, self.max_new_tokens, self.seed = d, int(max_new_tokens), int(seed)
        self.name = "local"

    def _render(self, messages: list[dict[str, str]]) -> str:
        tmpl = getattr(self._tok, "chat_template", None)
        if tmpl:
            return str(self._tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True))
        return "".join(f"<|{m['role']}|>\n{m['content']}\n" for m in messages) + "<|assistant|>\n"

    def generate(self, text: str) -> str:
        """Greedy continuation of ``text`` (only the new tokens, decoded)."""
        torch = self._torch
        torch.manual_seed(self.seed)
        enc = self._tok(text, return_tensors="pt")
        limit = getattr(self._model.config, "n_positions", None) or getattr(self._model.config, "max_position_embeddings", None)
        ids = enc["input_ids"]
        if limit is not None and ids.shape[1] + self.max_new_tokens > limit:
            keep = max(1, int(limit) - self.max_new_tokens)
            ids = ids[:, -keep:]  # a tiny context window keeps the tail: the user's request and the feedback
        pad = self._tok.pad_token_id if self._tok.pad_token_id is not None else self._tok.eos_token_id
        with torch.no_grad():
            out = self._model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=self.max_new_tokens, do_sample=False, pad_token_id=pad)
        return str(self._tok.decode(out[0, ids.shape[1] :], skip_special_tokens=True))

    def parse(self, prompt: str, previous: ScenarioSpec | None = None, errors: Sequence[str] = ()) -> ParseAttempt:
        meta: dict[str, Any] = {"parser": self.name, "model": str(self.model_dir), "temperature": 0.0, "seed": self.seed, "feedback": tuple(errors)}
        t0 = time.perf_counter()  # latency is recorded, never decided on
        raw = self.generate(self._render(build_messages(prompt, previous, errors, shots=True)))  # few-shot: the field names by example
        latency = time.perf_counter() - t0
        spec: Optional[ScenarioSpec]
        try:
            spec, error = spec_from_text(raw, "local model answer"), None
        except SpecError as e:
            spec, error = None, str(e)
        return ParseAttempt(raw=raw, spec=spec, error=error, latency=latency, **meta)


__all__ = ["LocalLmParser"]
