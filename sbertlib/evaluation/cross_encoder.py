"""STS evaluation of a cross-encoder: Spearman ×100 of its predicted scores against the gold scores.

A cross-encoder (:class:`sbertlib.model.cross_encoder.CrossEncoder`) gives no sentence vectors, so
there is no cosine to correlate: its score for the pair *is* the prediction. Everything else is
:mod:`sbertlib.evaluation.sts`'s: the same pairs (STSb ``split``, or those given), the same seeded
sample with ``max_pairs``, the same correlation (:func:`~sbertlib.evaluation.sts.correlations`), so a
cross-encoder's figure and a bi-encoder's :class:`~sbertlib.evaluation.sts.STSEvaluator` figure on
the same pairs compare directly (Table 2's BERT rows against its SBERT rows).
"""
from __future__ import annotations

import numpy as np

from .sts import STSEvaluator, correlations
from ..errors import SettingError


class CrossEncoderSTSEvaluator(STSEvaluator):
    """``evaluator(cross_encoder) -> Spearman × 100`` of predicted scores against gold STS scores —
    the cross-encoder's counterpart of :class:`~sbertlib.evaluation.sts.STSEvaluator` (same pairs, same
    sampling), usable as ``fit(..., evaluator=...)``."""

    def __call__(self, cross_encoder) -> float:
        pairs = self._load()
        if len(pairs) < 2:
            raise SettingError(f"need at least 2 pairs to correlate, got {len(pairs)}")
        pred = cross_encoder.predict([(p.sentence1, p.sentence2) for p in pairs], batch_size=self.batch_size)
        return correlations(np.asarray(pred, dtype=np.float64), np.array([p.score for p in pairs], dtype=np.float64))[0]

    def __repr__(self) -> str:
        what = f"{len(self.pairs)} pairs" if self.pairs is not None else f"stsb-{self.split} (not loaded yet)"
        return f"CrossEncoderSTSEvaluator({what}, max_pairs={self.max_pairs}, predicted-score Spearman x100)"
