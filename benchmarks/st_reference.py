"""Outside reference for `python -m sbertlib.bench`: time sentence-transformers' encode.

Run as a separate process so that sbertlib never imports sentence-transformers. Reads a JSON
job (model path, sentences, batch size, threads, repeats), writes timings and embeddings.
"""
import json
import sys

import numpy as np
import torch
from sentence_transformers import SentenceTransformer

from sbertlib.speed import measure


def main(job_path: str, out_prefix: str) -> None:
    job = json.load(open(job_path))
    torch.set_num_threads(job["threads"])
    model = SentenceTransformer(job["model_path"], device=job.get("device", "cpu"))
    model.max_seq_length = job["max_seq_length"]
    sentences, bs = job["sentences"], job["batch_size"]
    timing = measure("sentence-transformers encode", lambda: model.encode(sentences, batch_size=bs),
                     len(sentences), job["repeats"], job["warmup"])
    np.save(out_prefix + ".npy", model.encode(sentences, batch_size=bs))
    json.dump(timing.as_dict(), open(out_prefix + ".json", "w"))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
