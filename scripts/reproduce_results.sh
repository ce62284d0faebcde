#!/usr/bin/env bash
# Regenerate every number of docs/results.md (issues 10, 19): the datasets and DAgger rounds of the release chain,
# the release model and its twin trained without warning samples, the frozen-suite evaluations, the Table 6 /
# Table 11 variants and the App. F / H case studies, then the tables.
#
#   bash scripts/reproduce_results.sh [OUT]            (default OUT: out/results; resumable: rerun to continue)
#
# Sizes (environment): T6_PAIRS pairs per family for the Table 6 variants (default 20 = the whole suite),
# WORKERS runs at once (default 2). Each step skips what a finished earlier call left in OUT.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$(realpath -m "${1:-$ROOT/out/results}")"
T6_PAIRS="${T6_PAIRS:-20}"
WORKERS="${WORKERS:-2}"
bash "$ROOT/scripts/setup.sh"
cd "$ROOT"
L="$ROOT/.venv/bin/lantern"
mkdir -p "$OUT"
step() { echo "[reproduce $(date +%H:%M:%S)] $*" >&2; }

# The release chain (docs/learned_agent.md, issue 19 rounds 11 and 15): round 0 is learned_v2's recipe on the
# default expert; the release's own data is the expert that stops yielding once the cross flow has crossed
# (--expert-flow-rule crossed) plus two DAgger rounds, each driven by the previous round's model and labelled by
# that expert. Every step is deterministic (seeded collection, one training thread).
RECIPE=(--inputs 2 --outputs path_speed --epochs 8 --threads 1 --quiet)
FLOW=(--expert-flow-rule crossed)
# a rerun of either command does nothing when its step is done and resumes it when it was interrupted
collect() { local out="$1"; shift; "$L" dataset collect --out "$out" --workers "$WORKERS" "$@"; }
train() { local out="$1"; shift; "$L" train --out "$out" "${RECIPE[@]}" "$@"; }
step "round 0: the expert dataset (600 sequences, steering perturbations) and its model (learned_v2)"
collect "$OUT/dataset" --perturb
train "$OUT/ckpt_round0" --data "$OUT/dataset" --keep-termination-rows
step "the release's expert dataset (the same 600 routes, the 'crossed' flow rule)"
collect "$OUT/dataset_crossed" --perturb "${FLOW[@]}"
step "DAgger round 1 (round 0 drives, 200 sequences) and its model"
collect "$OUT/dagger1" --dagger "$OUT/ckpt_round0" --size 200 "${FLOW[@]}"
DATA=(--data "$OUT/dataset_crossed" --data "$OUT/dagger1")
train "$OUT/ckpt_round1" "${DATA[@]}" --keep-termination-rows
step "DAgger round 2 (round 1 drives) and the two models of the release recipe"
collect "$OUT/dagger2" --dagger "$OUT/ckpt_round1" --size 200 "${FLOW[@]}"
DATA+=(--data "$OUT/dagger2")
# the release (learned_v4, issue 19 round 15) also trains on other wordings of every warning, the warning sentence
# placed far ahead, notices about activity off the driving path and statements to ignore; the twin has no warning rows
LANGUAGE=(--paraphrases 1.0 --far-warnings 0.1 --offpath-notices 0.25 --ignore-statements 0.25)
train "$OUT/ckpt_warning" "${DATA[@]}" --keep-termination-rows "${LANGUAGE[@]}"
train "$OUT/ckpt_no_warning_training" "${DATA[@]}" --no-warning-samples
W="{\"model_dir\": \"$OUT/ckpt_warning\"}"
Z="{\"model_dir\": \"$OUT/ckpt_no_warning_training\"}"

suite() { "$L" suite --workers "$WORKERS" "$@" | tail -n 12; }
step "Table 3/4: the frozen 120-pair suite"
suite --agent learned --agent-options "$W" --out "$OUT/suite/learned"
suite --agent learned --agent-options "$Z" --out "$OUT/suite/learned_zs"
suite --agent onboard --out "$OUT/suite/onboard"
suite --agent expert --out "$OUT/suite/expert"

step "Table 11 (and Table 6's held-out paraphrase row): one ambiguity level per disjoint 40-pair subset"
shard=0
for level in low medium high; do
  printf 'lantern_rsu:\n  ros__parameters:\n    paraphrase_level: %s\n' "$level" > "$OUT/paraphrase_$level.yaml"
  suite --agent learned --agent-options "$W" --variant paraphrase --params-file "$OUT/paraphrase_$level.yaml" \
        --shard "$shard/3" --controls-from "$OUT/suite/learned" --out "$OUT/table11/$level"
  shard=$((shard + 1))
done
mkdir -p "$OUT/table6"
[ -d "$OUT/table6/paraphrase/scores" ] || "$L" score "$OUT"/table11/*/runs/*__A__warning/bag "$OUT"/suite/learned/runs/*__B/bag --out "$OUT/table6/paraphrase/scores" > /dev/null

step "Table 6: protocol variants ($T6_PAIRS pairs per family)"
for v in late_onset beyond_termination noisy_position; do
  suite --agent learned --agent-options "$W" --variant "$v" --pairs "$T6_PAIRS" --controls-from "$OUT/suite/learned" --out "$OUT/table6/$v"
done
printf 'lantern_bridge:\n  ros__parameters:\n    anti_deadlock: false\n' > "$OUT/no_anti_deadlock.yaml"
suite --agent learned --agent-options "$W" --params-file "$OUT/no_anti_deadlock.yaml" --pairs "$T6_PAIRS" --out "$OUT/table6/no_anti_deadlock"

# the full protocol on the same pairs, for comparison with the variant rows (scored from the suite's own bags)
if [ ! -f "$OUT/table6/full_same_pairs/scores/summary.json" ]; then
  bags=()
  for d in "$OUT"/table6/late_onset/runs/*; do
    id="$(basename "$d")"
    case "$id" in *__A__warning) bags+=("$OUT/suite/learned/runs/$id/bag");; *__B) bags+=("$d/bag");; esac
  done
  "$L" score "${bags[@]}" --out "$OUT/table6/full_same_pairs/scores" > /dev/null
fi

step "App. F / App. H case studies"
for cs in heldout nonactionable nearfar; do
  [ -f "$OUT/case_studies/$cs/table.md" ] || "$L" case-study "$cs" --agent learned --agent-options "$W" --workers "$WORKERS" --out "$OUT/case_studies/$cs" | tail -n 12
done

step "tables -> $OUT/results_tables.md"
"$ROOT/.venv/bin/python" "$ROOT/scripts/results_tables.py" "$OUT" > "$OUT/results_tables.md"
step "done"
