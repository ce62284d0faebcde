"""Issue 19's language rows: training wordings of the six families' warnings, kept apart from every text the
evaluation holds out, the warning rows they add (``lantern train --paraphrases``), far-warning counterexamples
(``--far-warnings``), off-path notices (``--offpath-notices``) and negated / irrelevant statements
(``--ignore-statements``)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from learned_synth import write_dataset
from lantern_agent.learned import counterexamples as cx
from lantern_agent.learned import data as ds
from lantern_agent.learned import ignore_statements as ig
from lantern_agent.learned import offpath_notices as op
from lantern_agent.learned import training_wordings as tw
from lantern_agent.learned.model import read_manifest
from lantern_agent.learned.train import TrainConfig, select_rows

pytestmark = pytest.mark.timeout(600)
CFG = TrainConfig(epochs=1, batch_size=16, seed=3, inputs=2, paraphrase_fraction=0.5, far_warning_fraction=0.3, offpath_fraction=0.2,
                  ignore_statement_fraction=0.2)
#: token-set Jaccard at or above which a training wording counts as a copy of a held-out text
NEAR_COPY = 0.5


def _words(text: str) -> set[str]:
    text = re.sub(r"\(-?[\d.]+, -?[\d.]+\)|<FRONT_CAR_POS>|\{pos\}", " ", text.lower())
    return set(re.findall(r"[a-z']+", text))


def _jaccard(a: str, b: str) -> float:
    x, y = _words(a), _words(b)
    return len(x & y) / max(1, len(x | y))


def _all_wordings() -> list[str]:
    return [w for fam in tw.WORDINGS for w in (*tw.positioned(fam), *tw.positionless(fam))]


def test_every_family_has_wordings_of_both_kinds_well_formed():
    from lantern_warning_server.templates import TemplateLibrary

    lib = TemplateLibrary.load()
    assert set(tw.WORDINGS) == {lib.get(i).family for i in lib.ids() if i.startswith("table2.")}
    for fam in tw.WORDINGS:
        pos, free = tw.positioned(fam), tw.positionless(fam)
        assert len(pos) >= 12 and len(free) >= 6, fam
        assert all(w.count(tw.PLACEHOLDER) == 1 for w in pos) and not any("{" in w or re.search(r"\d", w) for w in free)
    words = [w.lower() for w in _all_wordings()]
    assert len(set(words)) == len(words)
    with pytest.raises(KeyError, match="no_such_family"):
        tw.positioned("no_such_family")


def _held_out() -> list[str]:
    """Every text the evaluation holds out: the frozen suite's held-out paraphrases (Table 11), App. F / App. H
    warnings and probe phrases, and the development language check's texts (the Table 2 sentences are the training
    data itself, so they are not held out)."""
    from lantern_bringup import dev_language as dl
    from lantern_bringup.learned_cli import IRRELEVANT, NEGATED
    from lantern_warning_server.templates import TemplateLibrary

    lib = TemplateLibrary.load()
    held = [lib.get(i).text for i in lib.ids() if not i.startswith(("table2.", "kind."))]
    assert sum(i.startswith("para.") for i in lib.ids()) == 36 and len(held) > 36
    dev = dl.load_texts()
    return [*held, *NEGATED, IRRELEVANT, *(t for levels in dev.paraphrases.values() for ts in levels.values() for t in ts), *(s.text for s in dev.ignore)]


def test_no_training_text_is_or_nearly_is_a_text_the_evaluation_holds_out():
    """None of the training wordings, off-path notices, negated / irrelevant statements or counterexample templates is a
    held-out text, or shares ``NEAR_COPY`` of its words with one."""
    held = _held_out()
    for w in [*_all_wordings(), *op.NOTICES, *ig.STATEMENTS, *cx.all_templates()]:
        worst = max(held, key=lambda h: _jaccard(w, h))
        assert _jaccard(w, worst) < NEAR_COPY, (w, worst)
    for w in _all_wordings():  # nor a counterexample, which says the opposite
        assert all(_jaccard(w, c) < NEAR_COPY for c in cx.all_templates()), w


def test_offpath_notices_are_well_formed_and_name_no_position():
    assert len(op.NOTICES) >= 90 and len({n.lower() for n in op.NOTICES}) == len(op.NOTICES)
    for n in op.NOTICES:
        assert n.isascii() and n.endswith(".") and not re.search(r"[\d(){}<>]", n) and 6 <= len(n.split()) <= 25, n


def test_ignore_statements_are_well_formed_and_name_no_position():
    assert len(ig.NEGATED) >= 60 and len(ig.IRRELEVANT) >= 60 and ig.STATEMENTS == (*ig.NEGATED, *ig.IRRELEVANT)
    assert len({n.lower() for n in ig.STATEMENTS}) == len(ig.STATEMENTS)
    assert not {n.lower() for n in ig.STATEMENTS} & {n.lower() for n in op.NOTICES}
    for n in ig.STATEMENTS:
        assert n.isascii() and n.endswith(".") and not re.search(r"[\d(){}<>]", n) and 5 <= len(n.split()) <= 25, n


@pytest.fixture(scope="module")
def synth(tmp_path_factory: pytest.TempPathFactory):
    from lantern_agent.learned.source import LearnedSource
    from lantern_agent.learned.source_v2 import LearnedSourceV2

    root = tmp_path_factory.mktemp("paraphrase")
    write_dataset(root / "data")
    info = ds.open_dataset(root / "data")
    base, _ = LearnedSource().build(info, CFG, root / "cache", lambda n: None)
    para, built = LearnedSourceV2().build(info, CFG, root / "cache", lambda n: None)
    assert not built  # the image cache is shared: paraphrase rows reuse the dataset rows' features
    return root, base, para


def test_paraphrase_rows_repeat_warning_rows_under_a_family_wording(synth):
    from lantern_agent.learned.source_v2 import with_counterexamples, with_paraphrases

    _, base, para = synth
    plain, texts0 = with_counterexamples(base, base.texts, 0.5, 3)
    rows, texts = with_paraphrases(plain, texts0, 0.5, 3)
    again, texts_again = with_paraphrases(plain, texts0, 0.5, 3)
    assert texts_again == texts and np.array_equal(again["text_index"], rows["text_index"])  # seeded
    assert np.array_equal(para.base_index[para.paraphrase], rows["base_index"][rows["paraphrase"]])  # what training builds
    n = len(plain["sequence_id"])
    assert texts[: len(texts0)] == texts0
    for name in ("text_index", "numeric", "counterexample", "base_index", "waypoints"):
        assert np.array_equal(np.asarray(rows[name])[:n], np.asarray(plain[name])), name
    pp = np.nonzero(rows["paraphrase"])[0]
    assert len(pp) and pp.min() == n and len(pp) == len(rows["sequence_id"]) - n
    src = rows["base_index"][pp]
    warned = np.nonzero(np.asarray(plain["warning_active"]) & ~plain["counterexample"])[0]
    assert 0.3 * len(warned) < len(pp) < 0.7 * len(warned)  # fraction 0.5 of the warning rows
    assert rows["warning_active"][pp].all() and np.array_equal(rows["waypoints"][pp], plain["waypoints"][src])
    assert [rows["sequence_id"][i] for i in pp] == [plain["sequence_id"][i] for i in src]  # same side of the split
    kinds = set()
    for i, s in zip(pp, src):
        text, own, family = texts[rows["text_index"][i]], texts0[plain["text_index"][s]], plain["family"][s]
        printed = re.search(r"\(-?[\d.]+, -?[\d.]+\)", own).group(0)
        if printed in text:
            kinds.add("positioned")
            assert text in {w.replace(tw.PLACEHOLDER, printed) for w in tw.positioned(family)}
            assert np.array_equal(rows["numeric"][i], plain["numeric"][s])
        else:
            kinds.add("positionless")
            assert text in tw.positionless(family) and not rows["numeric"][i, -2:].any()
            assert np.array_equal(rows["numeric"][i, :-2], plain["numeric"][s, :-2])
    assert kinds == {"positioned", "positionless"}


def test_far_warning_rows_put_the_family_sentence_far_ahead_on_rows_the_expert_drives_normally(synth):
    from lantern_agent.learned.inputs import position_features
    from lantern_agent.learned.source_v2 import with_counterexamples, with_far_warnings, with_paraphrases

    _, base, para = synth
    plain, texts0 = with_counterexamples(base, base.texts, 0.5, 3)
    rows, texts = with_far_warnings(plain, texts0, 0.3, 3)
    n = len(plain["sequence_id"])
    far = np.nonzero(np.asarray(rows["counterexample_kind"]) == "far_warning")[0]
    assert len(far) and far.min() == n and len(far) == len(rows["sequence_id"]) - n
    assert rows["counterexample"][far].all() and not rows["warning_active"][far].any()
    src = rows["base_index"][far]
    assert not plain["warning_active"][src].any() and not plain["counterexample"][src].any()
    assert np.array_equal(rows["waypoints"][far], plain["waypoints"][src])  # the expert's own driving there
    sentence = {texts0[plain["text_index"][i]] for i in np.nonzero(plain["warning_active"])[0]}
    shapes = {re.sub(r"\(-?[\d.]+, -?[\d.]+\)", "P", t) for t in sentence}
    assert len(shapes) == 1  # the synthetic dataset's one warning sentence
    for i in far:
        text = texts[rows["text_index"][i]]
        x, y = (float(v) for v in re.search(r"\((-?[\d.]+), (-?[\d.]+)\)", text).groups())
        assert re.sub(r"\(-?[\d.]+, -?[\d.]+\)", "P", text) in shapes and 90 <= x <= 200 and abs(y) <= 6
        assert np.allclose(rows["numeric"][i, -2:], position_features((x, y)))
    # the paraphrase draws are the same with or without the far rows in front of them
    a, _ = with_paraphrases(plain, texts0, 0.5, 3)
    b, _ = with_paraphrases(rows, texts, 0.5, 3)
    assert np.array_equal(np.asarray(a["base_index"])[a["paraphrase"]], np.asarray(b["base_index"])[b["paraphrase"]])
    assert int(np.sum(np.asarray(para.counterexample_kind) == "far_warning")) == len(far)  # what training builds


def test_offpath_rows_give_quiet_rows_a_notice_without_a_position(synth):
    from lantern_agent.learned.source_v2 import with_counterexamples, with_far_warnings, with_offpath_notices, with_paraphrases

    _, base, para = synth
    plain, texts0 = with_counterexamples(base, base.texts, 0.5, 3)
    rows, texts = with_offpath_notices(plain, texts0, 0.2, 3)
    again, texts_again = with_offpath_notices(plain, texts0, 0.2, 3)
    assert texts_again == texts and np.array_equal(again["text_index"], rows["text_index"])  # seeded
    n = len(plain["sequence_id"])
    off = np.nonzero(np.asarray(rows["counterexample_kind"]) == "offpath")[0]
    assert len(off) and off.min() == n and len(off) == len(rows["sequence_id"]) - n
    src = rows["base_index"][off]
    quiet = np.nonzero(~plain["warning_active"] & ~plain["counterexample"] & ((np.asarray(plain["route_kind"]) == "B") | (np.asarray(plain["condition"]) == "warning")))[0]
    assert set(src) <= set(quiet) and 0.1 * len(quiet) < len(off) < 0.3 * len(quiet)
    assert rows["counterexample"][off].all() and not rows["warning_active"][off].any()
    assert np.array_equal(rows["waypoints"][off], plain["waypoints"][src])  # the expert's own driving there
    assert not rows["numeric"][off, -2:].any() and np.array_equal(rows["numeric"][off, :-2], plain["numeric"][src, :-2])
    assert {texts[i] for i in rows["text_index"][off]} <= set(op.NOTICES) and len({texts[i] for i in rows["text_index"][off]}) > 1
    assert [rows["sequence_id"][i] for i in off] == [plain["sequence_id"][i] for i in src]  # same side of the split
    # the far-warning and paraphrase draws are the same with or without the off-path rows
    for fn, frac in ((with_far_warnings, 0.3), (with_paraphrases, 0.5)):
        a, _ = fn(plain, texts0, frac, 3)
        b, _ = fn(rows, texts, frac, 3)
        assert np.array_equal(np.asarray(a["base_index"])[n:], np.asarray(b["base_index"])[len(rows["sequence_id"]):]), fn.__name__
    assert int(np.sum(np.asarray(para.counterexample_kind) == "offpath")) == len(off)  # what training builds


def test_statement_rows_give_quiet_rows_a_negated_or_irrelevant_statement_without_a_position(synth):
    from lantern_agent.learned.source_v2 import with_counterexamples, with_ignore_statements, with_offpath_notices, with_paraphrases

    _, base, para = synth
    plain, texts0 = with_counterexamples(base, base.texts, 0.5, 3)
    offp, texts1 = with_offpath_notices(plain, texts0, 0.2, 3)
    rows, texts = with_ignore_statements(offp, texts1, 0.2, 3)
    again, _ = with_ignore_statements(offp, texts1, 0.2, 3)
    assert np.array_equal(again["text_index"], rows["text_index"])  # seeded
    n = len(offp["sequence_id"])
    st = np.nonzero(np.asarray(rows["counterexample_kind"]) == "statement")[0]
    assert len(st) and st.min() == n and len(st) == len(rows["sequence_id"]) - n
    src = rows["base_index"][st]
    quiet = np.nonzero(~plain["warning_active"] & ~plain["counterexample"] & ((np.asarray(plain["route_kind"]) == "B") | (np.asarray(plain["condition"]) == "warning")))[0]
    assert set(src) <= set(quiet) and 0.1 * len(quiet) < len(st) < 0.3 * len(quiet)  # dataset rows only, never an off-path row again
    assert rows["counterexample"][st].all() and not rows["warning_active"][st].any()
    assert np.array_equal(rows["waypoints"][st], plain["waypoints"][src]) and not rows["numeric"][st, -2:].any()
    said = {texts[i] for i in rows["text_index"][st]}
    assert said <= set(ig.STATEMENTS) and said & set(ig.NEGATED) and said & set(ig.IRRELEVANT)
    a, _ = with_paraphrases(offp, texts1, 0.5, 3)  # the paraphrase draw is the same with or without them
    b, _ = with_paraphrases(rows, texts, 0.5, 3)
    assert np.array_equal(np.asarray(a["base_index"])[n:], np.asarray(b["base_index"])[len(rows["sequence_id"]):])
    assert int(np.sum(np.asarray(para.counterexample_kind) == "statement")) == len(st)  # what training builds


def test_the_zero_shot_twin_trains_on_no_paraphrase_row(synth):
    _, _, para = synth
    assert select_rows(para, CFG).counts["train_paraphrases"] > 0
    twin = select_rows(para, TrainConfig(inputs=2, seed=3, paraphrase_fraction=0.5, no_warning_samples=True)).counts
    assert twin["train_paraphrases"] == 0 and twin["train_warning_samples"] == 0 and twin["train_counterexamples"] == 0


def test_train_cli_paraphrases_option(synth, tmp_path, capsys):
    from lantern_agent.learned.cli import main as train_main

    root, _, _ = synth
    args = ["--data", str(root / "data"), "--cache-dir", str(root / "cache"), "--image-size", "96x48", "--quiet"]
    assert train_main([*args, "--out", str(tmp_path / "c"), "--inputs", "2", "--paraphrases", "0.5", "--epochs", "1", "--batch-size", "16"]) == 0
    man = read_manifest(tmp_path / "c")
    assert man["config"]["paraphrase_fraction"] == 0.5 and man["counts"]["train_paraphrases"] > 0
    assert train_main([*args, "--out", str(tmp_path / "d"), "--inputs", "2", "--epochs", "1", "--batch-size", "16"]) == 0
    man = read_manifest(tmp_path / "d")  # off by default, and then not recorded: the manifest of a recipe without them is unchanged
    assert not {"paraphrase_fraction", "far_warning_fraction", "offpath_fraction", "ignore_statement_fraction"} & set(man["config"]) and "train_paraphrases" not in man["counts"]
    capsys.readouterr()
    for bad in (["--paraphrases", "0.5"], ["--far-warnings", "0.1"], ["--offpath-notices", "0.1"], ["--inputs", "2", "--paraphrases", "2"],
                ["--inputs", "2", "--far-warnings", "-1"], ["--inputs", "2", "--offpath-notices", "1.5"],
                ["--ignore-statements", "0.1"], ["--inputs", "2", "--ignore-statements", "-0.5"]):
        with pytest.raises(SystemExit) as e:
            train_main([*args[:2], "--out", str(tmp_path / "o"), *bad])
        err = capsys.readouterr().err
        assert e.value.code == 2 and err.strip().count("\n") == 0, (bad, err)
