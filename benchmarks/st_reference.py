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


def encode(job: dict, out_prefix: str) -> None:
    model = SentenceTransformer(job["model_path"], device=job.get("device", "cpu"))
    model.max_seq_length = job["max_seq_length"]
    sentences, bs = job["sentences"], job["batch_size"]
    timing = measure("sentence-transformers encode", lambda: model.encode(sentences, batch_size=bs),
                     len(sentences), job["repeats"], job["warmup"])
    np.save(out_prefix + ".npy", model.encode(sentences, batch_size=bs))
    json.dump(timing.as_dict(), open(out_prefix + ".json", "w"))


def train(job: dict, out_prefix: str) -> None:
    """SoftmaxLoss steps on the given batches, the loop of sentence-transformers' classic fit()."""
    model = SentenceTransformer(job["model_path"], device=job.get("device", "cpu"))
    model.max_seq_length = job["max_seq_length"]
    loss = losses.SoftmaxLoss(model, model.get_sentence_embedding_dimension(), num_labels=3)
    opt = torch.optim.AdamW(loss.parameters(), lr=2e-5)
    model.train()
    pairs = 0
    start = None
    for i, batch in enumerate(job["batches"]):
        if i == job["warmup_steps"]:
            start, pairs = time.perf_counter(), 0
        feats = [model.preprocess([b[0] for b in batch]), model.preprocess([b[1] for b in batch])]
        value = loss(feats, torch.tensor([b[2] for b in batch]))
        value.backward()
        torch.nn.utils.clip_grad_norm_(loss.parameters(), 1.0)
        opt.step()
        opt.zero_grad()
        pairs += len(batch)
    json.dump({"label": "sentence-transformers SoftmaxLoss loop", "pairs_per_s": pairs / (time.perf_counter() - start)},
              open(out_prefix + ".json", "w"))


if __name__ == "__main__":
    torch.set_num_threads(int(json.load(open(sys.argv[2]))["threads"]))
    {"encode": encode, "train": train}[sys.argv[1]](json.load(open(sys.argv[2])), sys.argv[3])
