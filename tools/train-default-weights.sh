#!/bin/sh
# Produces the shipped weights, offline, for both readings of the paper
# (docs/paper-mapping.md): examples/amazons/paper/weights/{uctae,gatae,value}.json (the
# relative reading, the default) and weights/literal/{uctae,gatae}.json (the literal
# reading), each with its training report. The local teacher on loopback, with its default
# settings (the GPT-4o-mini stand-in of docs/labeler.md), labels the candidate moves of
# positions from seeded games; `amazons train` fits the networks of each reading on those
# labels. Every step is seeded, so the same build gives the same labels and the same weights.
#
#   tools/train-default-weights.sh [BUILD_DIR]    (default build/release, built beforehand)
set -eu
build=${1:-build/release}
amazons=$build/bin/amazons
work=$build/default-weights
port=${GSEARCH_TEACHER_PORT:-18765}
weights=examples/amazons/paper/weights
mkdir -p "$work" "$weights/literal"
rm -f "$work/labels.jsonl"

"$amazons" teacher-serve --port "$port" --seed 1 > "$work/teacher.log" &
teacher=$!
trap 'kill $teacher 2>/dev/null || true' EXIT INT TERM
sleep 1

"$amazons" label --out "$work/labels.jsonl" --url "http://127.0.0.1:$port/v1" \
  --players invader:iters=300,trap=0 uct:iters=200 --games 24 --seed 1 \
  --candidates tree:nodes=60,seed=1 --connections 8 --sync-every 64

"$amazons" train --labels "$work/labels.jsonl" --out "$weights" --reading relative --seed 1 \
  --tree-seed 1 --tree-nodes 60
"$amazons" train --labels "$work/labels.jsonl" --out "$weights/literal" --reading literal \
  --seed 1 --tree-seed 1 --tree-nodes 60
