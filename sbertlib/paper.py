"""Figures transcribed from Reimers & Gurevych (2019), to show beside ours — never to replace them.

All STS numbers are Spearman rank correlation ×100 between cosine similarity and gold.
"""
from __future__ import annotations

TABLE1_COLUMNS = ("sts12", "sts13", "sts14", "sts15", "sts16", "stsb-test", "sick-r")

# Table 1: unsupervised STS (no STS training data used).
TABLE1 = {
    "Avg. GloVe embeddings": (55.14, 70.66, 59.73, 68.25, 63.66, 58.02, 53.76),
    "Avg. BERT embeddings": (38.78, 57.98, 57.98, 63.15, 61.06, 46.35, 58.40),
    "BERT CLS-vector": (20.16, 30.01, 20.09, 36.88, 38.08, 16.50, 42.63),
    "InferSent - Glove": (52.86, 66.75, 62.15, 72.77, 66.87, 68.03, 65.65),
    "Universal Sentence Encoder": (64.49, 67.80, 64.61, 76.83, 73.18, 74.92, 76.69),
    "SBERT-NLI-base": (70.97, 76.53, 73.19, 79.09, 74.30, 77.03, 72.91),
    "SBERT-NLI-large": (72.27, 78.46, 74.90, 80.99, 76.25, 79.23, 73.75),
    "SRoBERTa-NLI-base": (71.54, 72.49, 70.80, 78.74, 73.69, 77.77, 74.46),
    "SRoBERTa-NLI-large": (74.53, 77.00, 73.18, 81.85, 76.82, 79.10, 74.29),
}

# The STS benchmark's test split (Cer et al., 2017): the pairs Table 2 and Table 1's STSb column are measured on.
STSB_TEST_PAIRS = 1379

# Table 2: STS benchmark test set, (mean, std over 10 seeds) where the paper gives a std.
TABLE2 = {
    "Not trained for STS": {
        "Avg. GloVe embeddings": (58.02, None), "Avg. BERT embeddings": (46.35, None),
        "InferSent - GloVe": (68.03, None), "Universal Sentence Encoder": (74.92, None),
        "SBERT-NLI-base": (77.03, None), "SBERT-NLI-large": (79.23, None)},
    "Trained on STS benchmark (STSb)": {
        "BERT-STSb-base": (84.30, 0.76), "SBERT-STSb-base": (84.67, 0.19),
        "SRoBERTa-STSb-base": (84.92, 0.34), "BERT-STSb-large": (85.64, 0.81),
        "SBERT-STSb-large": (84.45, 0.43), "SRoBERTa-STSb-large": (85.02, 0.76)},
    "Trained on NLI data + STSb": {
        "BERT-NLI-STSb-base": (88.33, 0.19), "SBERT-NLI-STSb-base": (85.35, 0.17),
        "SRoBERTa-NLI-STSb-base": (84.79, 0.38), "BERT-NLI-STSb-large": (88.77, 0.46),
        "SBERT-NLI-STSb-large": (86.10, 0.13), "SRoBERTa-NLI-STSb-large": (86.15, 0.35)},
}

# Table 4: accuracy (%) on the Wikipedia Sections Distinction triplets (Dor et al., 2018) — the paper's
# triplet-objective experiment; a different task and data set from anything available offline.
TABLE4 = {
    "Mean-vectors": 65.0, "skip-thoughts-CS": 62.0, "Dor et al.": 74.0,
    "SBERT-WikiSec-base": 80.42, "SBERT-WikiSec-large": 80.78,
}

# Table 5: SentEval transfer accuracy. Its caption says the scores are based on 10-fold cross-validation. Our
# protocol (sbertlib.evaluation.transfer) differs: 10-fold CV only for MR, CR, SUBJ and MPQA; SST, TREC and MRPC
# are scored on their fixed train/test splits (SentEval's standard splits); features are standardised and C
# is picked from 3 values by an inner 3-fold CV; CPU profiles use stratified subsets.
TABLE5_COLUMNS = ("MR", "CR", "SUBJ", "MPQA", "SST", "TREC", "MRPC")
TABLE5 = {
    "Avg. GloVe embeddings": (77.25, 78.30, 91.17, 87.85, 80.18, 83.0, 72.87),
    "Avg. fast-text embeddings": (77.96, 79.23, 91.68, 87.81, 82.15, 83.6, 74.49),
    "Avg. BERT embeddings": (78.66, 86.25, 94.37, 88.66, 84.40, 92.8, 69.45),
    "BERT CLS-vector": (78.68, 84.85, 94.21, 88.23, 84.13, 91.4, 71.13),
    "InferSent - GloVe": (81.57, 86.54, 92.50, 90.38, 84.18, 88.2, 75.77),
    "Universal Sentence Encoder": (80.09, 85.19, 93.98, 86.70, 86.38, 93.2, 70.14),
    "SBERT-NLI-base": (83.64, 89.43, 94.39, 89.86, 88.96, 89.6, 76.00),
    "SBERT-NLI-large": (84.88, 90.07, 94.52, 90.33, 90.66, 87.4, 75.94),
}

# Table 6: ablations on the STSb *development* set (SBERT-base): (trained on NLI, trained on STSb), the mean of
# 10 random seeds per configuration (Section 6). The paper gives no epoch count for these runs (the "4 epochs"
# are in Table 2's caption); the epochs of notebook 07's grid are our choice.
TABLE6_POOLING = {"mean": (80.78, 87.44), "max": (79.07, 69.92), "cls": (79.80, 86.62)}
TABLE6_CONCAT = {
    ("u", "v"): 66.04, ("|u-v|",): 69.78, ("u*v",): 70.54, ("|u-v|", "u*v"): 78.37,
    ("u", "v", "u*v"): 77.44, ("u", "v", "|u-v|"): 80.78, ("u", "v", "|u-v|", "u*v"): 80.44,
}
TABLE6_CONCATS: tuple[tuple[str, ...], ...] = tuple(TABLE6_CONCAT)  # the seven concatenations, Table 6's order

# Table 7: sentences per second (Intel i7-5820K CPU @ 3.30GHz, NVIDIA Tesla V100).
TABLE7 = {
    "Avg. GloVe embeddings": (6469, None),
    "InferSent": (137, 1876),
    "Universal Sentence Encoder": (67, 1318),
    "SBERT-base": (44, 1378),
    "SBERT-base - smart batching": (83, 2042),
}

# Introduction: finding the most similar pair in 10,000 sentences.
CROSS_ENCODER_HOURS_10K = 65.0  # BERT cross-encoder (size not stated), n(n-1)/2 = 49,995,000 inferences on a V100
SBERT_SECONDS_10K = 5.0
