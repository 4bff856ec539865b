"""The workbook's cross-encoder, train-or-load as :mod:`sbertlib.workbook.runs` does for bi-encoders: trained with
:func:`sbertlib.training.fit` on the same STSb train pairs and stage (epochs, batch, learning rate) as the profile's
bi-encoder regression; it differs in how it reads a pair, its loss (binary cross-entropy against gold/5, not the MSE
of a cosine) and its maximum length (a pair, not one sentence)."""
from __future__ import annotations

from pathlib import Path

from ..util import safe_name
from . import runs
from ..training.arguments import DEFAULT_SEED

PAIR_LENGTH_FACTOR = 2  # a cross-encoder reads two sentences at once: twice the profile's max_seq_length


def cross_encoder_dir(profile, seed: int = DEFAULT_SEED) -> Path:
    """Where the profile's cross-encoder lives (under ``runs.output_dir``)."""
    return runs.output_dir(profile.name, f"cross-encoder-stsb-{safe_name(profile.backbone)}-seed{seed}")


def trained_cross_encoder(profile, seed: int = DEFAULT_SEED, retrain: bool = False, data_dir=None,
                          show_progress_bar: bool = False):
    """``(cross_encoder, history)``: trained on STSb train the first time, loaded afterwards.

    Starts from ``profile.backbone`` (offline: ``random-bert-2x128``, random weights; its pooler and
    head are drawn with ``seed``) and reads pairs of up to ``2 × profile.max_seq_length`` tokens.
    """
    from ..losses import CrossEncoderLoss
    from ..model.cross_encoder import CrossEncoder
    from ..training import FINAL_DIR, History, fit

    folder = cross_encoder_dir(profile, seed)
    final, hist_file = folder / FINAL_DIR, folder / "history.json"
    if final.is_dir() and hist_file.is_file() and not retrain:
        return CrossEncoder.load(final), History.load(hist_file)
    length = min(PAIR_LENGTH_FACTOR * profile.max_seq_length, 512)
    model = CrossEncoder.from_pretrained(profile.backbone, max_seq_length=length, seed=seed)
    stsb = profile.stage("stsb")   # the bi-encoder regression's whole stage: its pairs and arguments
    train, args = stsb.examples(seed, data_dir), stsb.arguments(seed)
    history = fit(model, CrossEncoderLoss(model), train, args, output_dir=runs.fresh_folder(folder),
                  show_progress_bar=show_progress_bar, profile=profile.name)
    if history.interrupted:
        raise KeyboardInterrupt("cross-encoder training interrupted; nothing was saved as final")
    history.save(hist_file)
    return model, history
