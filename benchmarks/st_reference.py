"""Outside reference for `python -m sbertlib bench`: time sentence-transformers.

Run as a separate process so that sbertlib never imports sentence-transformers. Reads a JSON job,
writes timings (and, for encode, the embeddings).

    python benchmarks/st_reference.py encode JOB.json OUT_PREFIX
    python benchmarks/st_reference.py train  JOB.json OUT_PREFIX
"""
import json
import sys
import time

import numpy as np
import torch
from sentence_transformers import SentenceTransformer, losses

from sbertlib.evaluation.speed import measure

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
AUTOCAST = {"bf16": torch.bfloat16, "fp16": torch.float16}  # training: fp32 weights, autocast to these


def at_precision(model: SentenceTransformer, precision: str) -> SentenceTransformer:
    """The model cast as sentence-transformers' users do it: ``.to(dtype)``, or dynamic int8 quantisation."""
    if precision == "int8":
        return torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
    return model.to(DTYPES[precision])


def job_precision(job: dict, allowed: tuple[str, ...]) -> str:
    """The job's precision (default fp32); exits naming the setting if it is not in ``allowed``."""
    precision = job.get("precision", "fp32")
    if precision not in allowed:
        sys.exit(f"st_reference {sys.argv[1]}: precision {precision!r} is not one of {allowed} (resolve 'auto' first)")
    return precision


def encode(job: dict, out_prefix: str) -> None:
    precision = job_precision(job, (*DTYPES, "int8"))
    model = SentenceTransformer(job["model_path"], device=job.get("device", "cpu"))
    model.max_seq_length = job["max_seq_length"]
    model = at_precision(model, precision)
    sentences, bs = job["sentences"], job["batch_size"]
    label = "sentence-transformers encode" + ("" if precision == "fp32" else f", {precision}")
    timing = measure(label, lambda: model.encode(sentences, batch_size=bs), len(sentences), job["repeats"], job["warmup_runs"])
    np.save(out_prefix + ".npy", np.asarray(model.encode(sentences, batch_size=bs, convert_to_tensor=True).float().cpu()))
    json.dump(timing.as_dict(), open(out_prefix + ".json", "w"))


def _sync(device: torch.device) -> None:
    """Wait for queued GPU work, so the clock measures it."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _step(loss: torch.nn.Module, opt: torch.optim.Optimizer, scaler, value: torch.Tensor) -> None:
    """Backward, clip to norm 1, optimizer step; through the GradScaler when there is one."""
    if scaler is None:
        value.backward()
    else:
        scaler.scale(value).backward()
        scaler.unscale_(opt)
    torch.nn.utils.clip_grad_norm_(loss.parameters(), 1.0)
    if scaler is None:
        opt.step()
    else:
        scaler.step(opt)
        scaler.update()
    opt.zero_grad()


def train(job: dict, out_prefix: str) -> None:
    """SoftmaxLoss steps on the given batches, the loop of sentence-transformers' classic fit(), on
    ``job["device"]`` with autocast for that device type (and a GradScaler for fp16, as fit() uses)."""
    device = torch.device(job.get("device", "cpu"))
    precision = job_precision(job, ("fp32", *AUTOCAST))
    model = SentenceTransformer(job["model_path"], device=str(device))
    model.max_seq_length = job["max_seq_length"]
    loss = losses.SoftmaxLoss(model, model.get_sentence_embedding_dimension(), num_labels=3).to(device)
    opt = torch.optim.AdamW(loss.parameters(), lr=2e-5)
    scaler = torch.amp.GradScaler(device.type) if precision == "fp16" else None
    dtype = AUTOCAST.get(precision)
    model.train()
    pairs, start = 0, None
    for i, batch in enumerate(job["batches"]):
        if i == job["warmup_steps"]:
            _sync(device)
            start, pairs = time.perf_counter(), 0
        feats = [{k: v.to(device) if torch.is_tensor(v) else v for k, v in model.preprocess(texts).items()}
                 for texts in ([b[0] for b in batch], [b[1] for b in batch])]
        with torch.autocast(device.type, dtype=dtype or torch.bfloat16, enabled=dtype is not None):
            value = loss(feats, torch.tensor([b[2] for b in batch], device=device))
        _step(loss, opt, scaler, value)
        pairs += len(batch)
    _sync(device)
    label = "sentence-transformers SoftmaxLoss loop" + (f", {precision} autocast" if dtype else "")
    json.dump({"label": label, "pairs_per_s": pairs / (time.perf_counter() - start)}, open(out_prefix + ".json", "w"))


if __name__ == "__main__":
    torch.set_num_threads(int(json.load(open(sys.argv[2]))["threads"]))
    {"encode": encode, "train": train}[sys.argv[1]](json.load(open(sys.argv[2])), sys.argv[3])
