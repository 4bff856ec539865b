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


def at_precision(model: SentenceTransformer, precision: str) -> SentenceTransformer:
    """The model cast as sentence-transformers' users do it: ``.to(dtype)``, or dynamic int8 quantisation."""
    if precision == "int8":
        return torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
    return model.to({"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[precision])


def encode(job: dict, out_prefix: str) -> None:
    model = SentenceTransformer(job["model_path"], device=job.get("device", "cpu"))
    model.max_seq_length = job["max_seq_length"]
    precision = job.get("precision", "fp32")
    model = at_precision(model, precision)
    sentences, bs = job["sentences"], job["batch_size"]
    label = "sentence-transformers encode" + ("" if precision == "fp32" else f", {precision}")
    timing = measure(label, lambda: model.encode(sentences, batch_size=bs), len(sentences), job["repeats"], job["warmup"])
    np.save(out_prefix + ".npy", np.asarray(model.encode(sentences, batch_size=bs, convert_to_tensor=True).float().cpu()))
    json.dump(timing.as_dict(), open(out_prefix + ".json", "w"))


def train(job: dict, out_prefix: str) -> None:
    """SoftmaxLoss steps on the given batches, the loop of sentence-transformers' classic fit()."""
    model = SentenceTransformer(job["model_path"], device=job.get("device", "cpu"))
    model.max_seq_length = job["max_seq_length"]
    loss = losses.SoftmaxLoss(model, model.get_sentence_embedding_dimension(), num_labels=3)
    opt = torch.optim.AdamW(loss.parameters(), lr=2e-5)
    model.train()
    amp = job.get("precision", "fp32") == "bf16"
    pairs = 0
    start = None
    for i, batch in enumerate(job["batches"]):
        if i == job["warmup_steps"]:
            start, pairs = time.perf_counter(), 0
        feats = [model.preprocess([b[0] for b in batch]), model.preprocess([b[1] for b in batch])]
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amp):
            value = loss(feats, torch.tensor([b[2] for b in batch]))
        value.backward()
        torch.nn.utils.clip_grad_norm_(loss.parameters(), 1.0)
        opt.step()
        opt.zero_grad()
        pairs += len(batch)
    json.dump({"label": "sentence-transformers SoftmaxLoss loop" + (", bf16 autocast" if amp else ""), "pairs_per_s": pairs / (time.perf_counter() - start)},
              open(out_prefix + ".json", "w"))


if __name__ == "__main__":
    torch.set_num_threads(int(json.load(open(sys.argv[2]))["threads"]))
    {"encode": encode, "train": train}[sys.argv[1]](json.load(open(sys.argv[2])), sys.argv[3])
