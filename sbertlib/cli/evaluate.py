"""Command line: evaluate any encoder on the STS sets of the paper's Table 1.

    python -m sbertlib evaluate --model minilm --datasets stsb-test,sts12,sick-r
    python -m sbertlib evaluate --model bert-base-uncased --pooling cls --json
    python -m sbertlib evaluate --model glove          # average GloVe 6B 50d

Scores are Spearman ×100 of cosine similarity vs gold, all pairs of a dataset pooled.
"""
from __future__ import annotations

import json
import sys

from .. import data, evaluation
from .common import add_device, command, parser


def build_encoder(name: str, pooling: str | None, max_seq_length: int | None, device: str | None):
    """``glove`` → average GloVe 6B 50d; anything else → :class:`SentenceEncoder`."""
    if name in ("glove", "glove-6b-50d"):
        from ..model.word_average import AverageWordEmbeddings
        return AverageWordEmbeddings.glove_6b_50d()
    from ..model.encoder import SentenceEncoder
    return SentenceEncoder.from_pretrained(name, pooling=pooling, max_seq_length=max_seq_length,
                                           device=device)


@command("evaluate")
def main(argv: list[str] | None = None) -> int:
    ap = parser("evaluate", __doc__)
    ap.add_argument("--model", required=True,
                    help="hub name, local folder, saved encoder, 'minilm', 'tiny-random-bert' or 'glove'")
    ap.add_argument("--pooling", choices=("mean", "max", "cls"), default=None)
    ap.add_argument("--datasets", default=",".join(data.STS_DATASETS),
                    help=f"comma-separated, from {', '.join(data.STS_DATASETS)}, stsb-dev, ...")
    ap.add_argument("--data-dir", default=None, help="data folder (default: $SBERTLIB_DATA_DIR, else the checkout's data/)")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--max-seq-length", type=int, default=None)
    add_device(ap)
    ap.add_argument("--json", action="store_true", help="print one JSON object: one score per dataset")
    args = ap.parse_args(argv)

    names = [n.strip() for n in args.datasets.split(",") if n.strip()]
    encoder = build_encoder(args.model, args.pooling, args.max_seq_length, args.device)
    scores = evaluation.evaluate_suite(encoder, names, data_dir=args.data_dir, batch_size=args.batch_size).scores
    label = evaluation.label_for(encoder)
    if args.json:
        print(json.dumps({"backbone": encoder.info.get("backbone"), "stand_in": encoder.info.get("stand_in"),
                          "pooling": getattr(encoder, "pooling", None), "metric": "spearman_cosine_x100",
                          "scores": {k: round(v, 4) for k, v in scores.items()}}, indent=2))
    else:
        table = evaluation.table1({label: scores}, paper_rows=["Avg. GloVe embeddings",
                                          "Avg. BERT embeddings", "BERT CLS-vector", "SBERT-NLI-base"])
        print("Spearman x100, cosine similarity vs gold (all pairs of each dataset pooled)")
        print(table.to_string(na_rep="-"))
        if encoder.info.get("stand_in"):
            print(f"\nnote: {encoder.info['backbone']} is a stand-in, not the paper's model: "
                  "its row is not a reproduction of the paper.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
