"""Evaluating sentence encoders as the paper does.

============================  ==============================================================
module                        holds
============================  ==============================================================
``evaluation.sts``            the one STS evaluation (Spearman ×100 of cosine, §4, Tables 1–2):
                              ``evaluate_sts``, ``STSEvaluator`` (what ``fit`` calls), STS12–16
                              conventions, a suite of data sets, sampling, ``worst_pairs``
``evaluation.cross_encoder``  ``CrossEncoderSTSEvaluator``: the STS evaluation of a cross-encoder
                              (same pairs and Spearman as ``STSEvaluator``)
``evaluation.transfer``       SentEval-style logistic regression on frozen vectors (§5, Table 5)
``evaluation.ablation``       the pooling / concatenation grid over seeds (§6, Table 6)
``evaluation.speed``          honest timing: warm-up, repeats, median; smart batching (§7, Table 7)
``evaluation.reports``        ours beside the paper's tables, with labels naming what produced ours
``evaluation.contamination``  what a training set saw of each evaluation set: sentences, pairs
============================  ==============================================================
"""
from .reports import beside_paper, label_for, table1, table2, table5, table6, with_seen
from .sts import (STS_YEARS, STSEvaluator, STSResult, SuiteResult, correlations, embed_pairs, evaluate_sts,
                  evaluate_sts_subsets, evaluate_sts_year, evaluate_suite, sample_pairs, sample_subsets,
                  stsb_dev_evaluator, suite_pairs, worst_pairs)

__all__ = ["beside_paper", "label_for", "table1", "table2", "table5", "table6", "with_seen", "STS_YEARS", "STSEvaluator", "STSResult",
           "SuiteResult", "suite_pairs", "correlations", "embed_pairs", "evaluate_sts", "evaluate_sts_subsets",
           "evaluate_sts_year", "evaluate_suite", "sample_pairs", "sample_subsets", "stsb_dev_evaluator",
           "worst_pairs"]
