#!/bin/sh
# Produces the shipped weights examples/amazons/weights/{uctae,gatae}.json and their training
# report, offline: the local teacher on loopback labels the candidate moves of positions from
# seeded games, then `amazons train` fits UCT-AE and GAT-AE. Every step is seeded, so the same
# build gives the same labels and the same weights.
#
#   tools/train-default-weights.sh [BUILD_DIR]    (default build/release, built beforehand)
set -eu
build=${1:-build/release}
amazons=$build/bin/amazons
work=$build/default-weights
port=${GSEARCH_TEACHER_PORT:-18765}
mkdir -p "$work"

"$amazons" teacher-serve --port "$port" --seed 1 --noise 0.1 > "$work/teacher.log" &
teacher=$!
trap 'kill $teacher 2>/dev/null || true' EXIT INT TERM
sleep 1

"$amazons" label --out "$work/labels.jsonl" --url "http://127.0.0.1:$port/v1" \
  --players invader:iters=300 uct:iters=200 --games 24 --seed 1 \
  --candidates tree:nodes=60,seed=1 --connections 8 --sync-every 64

"$amazons" train --labels "$work/labels.jsonl" --out examples/amazons/weights --seed 1 \
  --tree-seed 1 --tree-nodes 60
