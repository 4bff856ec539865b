"""Notebook 12's bookkeeping: the sizes per profile, the STSb corpus with its gold scores, and the tables and
report lines its cells print. The notebook's exercises (search, mining, re-ranking, communities, recall) teach the
ideas; these functions only count, tabulate and word what they produced."""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from .. import paper
from ..evaluation.speed import pair_count

# How much each profile does (None = all). Training the cross-encoder (once, then cached) and the synthetic
# indexes dominate the time.
SIZES: dict[str, dict] = {
    "smoke": dict(corpus_pairs=300, held_out_queries=50, trec_questions=150, min_community=3,
                  synthetic=5_000, synthetic_queries=50, nlist=32, hnsw_M=16, ef_search=128,
                  cost_pairs=32, rerank_k=5, rerank_queries=40),
    "offline": dict(corpus_pairs=2_000, held_out_queries=200, trec_questions=500, min_community=5,
                    synthetic=50_000, synthetic_queries=100, nlist=256, hnsw_M=16, ef_search=128,
                    cost_pairs=256, rerank_k=20, rerank_queries=None),
}
SIZES["laptop"] = SIZES["offline"]
SIZES["paper"] = dict(SIZES["offline"], corpus_pairs=5_000, synthetic=1_000_000, nlist=1024)

# Table 2's STSb rows the notebook sets beside its own: name -> (Spearman x100, …) as in sbertlib.paper.
TABLE2_STSB = paper.TABLE2["Trained on STS benchmark (STSb)"] | paper.TABLE2["Trained on NLI data + STSb"]


def sizes(profile_name: str) -> dict:
    """What notebook 12 computes on ``profile_name`` (``offline``'s sizes for a profile it does not know)."""
    return dict(SIZES.get(profile_name, SIZES["offline"]))


# ----------------------------------------------------------------------------- the corpus
@dataclass
class StsbCorpus:
    """Sentences of STSb pairs (both sentences of the first ``corpus_pairs`` pairs after a seeded shuffle),
    held-out queries (first sentences of the following pairs, none in the corpus) and the gold score of
    every corpus pair, keyed by the unordered pair of sentences."""
    corpus: list[str]
    held_out: list[str]
    gold: dict[frozenset, float] = field(repr=False)
    pairs: int = 0

    def gold_of(self, i: int, j: int) -> float | None:
        """The STSb gold score (0–5) of corpus sentences ``i`` and ``j``, or None when they are no STSb pair."""
        return self.gold.get(frozenset((self.corpus[i], self.corpus[j])))


def stsb_corpus(pairs: Sequence, corpus_pairs: int, held_out_queries: int, seed: int) -> StsbCorpus:
    """Notebook 12's corpus from STSb ``pairs`` (records with ``sentence1``, ``sentence2``, ``score``)."""
    shuffled = list(pairs)
    random.Random(seed).shuffle(shuffled)
    corpus_part = shuffled[:corpus_pairs]
    query_part = shuffled[corpus_pairs:corpus_pairs + held_out_queries]
    corpus = list(dict.fromkeys(s for p in corpus_part for s in (p.sentence1, p.sentence2)))
    in_corpus = set(corpus)
    held_out = [p.sentence1 for p in query_part if p.sentence1 not in in_corpus]
    gold = {frozenset((p.sentence1, p.sentence2)): p.score for p in corpus_part}
    return StsbCorpus(corpus, held_out, gold, len(corpus_part))


# ----------------------------------------------------------------------------- mining
def _gold_text(g: float | None) -> str:
    return "—" if g is None else f"{g:.2f}"


def mined_table(mined: Sequence[tuple[float, int, int]], stsb: StsbCorpus, top: int = 10) -> pd.DataFrame:
    """The first ``top`` mined pairs ``(cosine, i, j)`` with their sentences and STSb gold score (— when none)."""
    rows = [{"cosine": round(float(score), 3), "sentence A": stsb.corpus[i], "sentence B": stsb.corpus[j],
             "STSb gold (0–5)": "—" if stsb.gold_of(i, j) is None else round(stsb.gold_of(i, j), 2)}
            for score, i, j in list(mined)[:top]]
    return pd.DataFrame(rows, index=range(1, len(rows) + 1))


def mined_quality(mined: Sequence[tuple[float, int, int]], stsb: StsbCorpus, top: int) -> tuple[int, float]:
    """Among the first ``top`` mined pairs: how many are STSb pairs, and their mean gold score (nan if none)."""
    scored = [g for g in (stsb.gold_of(i, j) for _, i, j in list(mined)[:top]) if g is not None]
    return len(scored), (float(np.mean(scored)) if scored else float("nan"))


def mined_report(mined: Sequence[tuple[float, int, int]], stsb: StsbCorpus, tops: Sequence[int] = (10, 100),
                 further: int = 6) -> str:
    """How many of the top mined pairs are STSb pairs and their mean gold against all corpus pairs',
    then ``further`` pairs from further down the list (from pair 101 where there are that many)."""
    mean_all = float(np.mean(list(stsb.gold.values())))
    lines = []
    for top in tops:
        found, mean_gold = mined_quality(mined, stsb, top)
        lines.append(f"top {top:>3} mined pairs: {found} are STSb pairs, mean gold score {mean_gold:.2f} "
                     f"(all {len(stsb.gold):,} corpus pairs: {mean_all:.2f})")
    start = min(100, max(0, len(mined) - further))
    lines.append(f"\nfurther down the list — mined pairs {start + 1} to {start + further}:")
    for score, i, j in list(mined)[start:start + further]:
        lines.append(f"  {score:.3f} [gold {_gold_text(stsb.gold_of(i, j))}]  {stsb.corpus[i]}  ||  {stsb.corpus[j]}")
    return "\n".join(lines)


def bi_encoder_seconds(n: int, n_measured: int, encode_s: float, mine_s: float) -> float:
    """Encode + mine time for ``n`` sentences from a measurement on ``n_measured`` (encoding ∝ n, mining ∝ n²)."""
    return encode_s * n / n_measured + mine_s * (n / n_measured) ** 2


def mining_cost_report(n: int, encode_s: float, mine_s: float, who: str, on: str) -> str:
    """What mining ``n`` sentences cost here and what a cross-encoder would have to score instead."""
    text = (f"{n:,} sentences → {pair_count(n):,} pairs a cross-encoder would have to score\n"
            f"bi-encoder here: encode {encode_s:.1f} s + mine {mine_s:.2f} s ({who}, {on}, measured)")
    if n < 10_000:
        text += (f"\nextrapolated to 10,000 sentences from our measurement (encoding ∝ n, mining ∝ n²): about "
                 f"{bi_encoder_seconds(10_000, n, encode_s, mine_s):.0f} s on this machine")
    return text


def cost_table(n_corpus: int, encode_s: float, mine_s: float, cross_pairs_per_s: float,
               ns: Sequence[int] | None = None) -> pd.DataFrame:
    """All pairs of ``n`` sentences: the cross-encoder's hours (from its pairs/s) against the bi-encoder's
    encode + mine seconds (measured on ``n_corpus``, extrapolated); one row per ``n`` (default: the
    corpus and 10,000)."""
    rows = {}
    for n in ns or (n_corpus, 10_000):
        cross_s = pair_count(n) / cross_pairs_per_s
        bi_s = bi_encoder_seconds(n, n_corpus, encode_s, mine_s)
        rows[f"{n:,} sentences"] = {"pairs": pair_count(n), "cross-encoder: all pairs (h)": cross_s / 3600,
                                    "bi-encoder: encode + mine (s)": bi_s, "cross / bi": cross_s / bi_s}
    return pd.DataFrame(rows).T


# ----------------------------------------------------------------------------- cross-encoder vs SBERT
def sts_table(models: Mapping[str, object], test_pairs: Sequence, seen: Sequence) -> pd.DataFrame:
    """Spearman x100 of every model on STSb test and on ``seen`` (pairs it was trained on): a cross-encoder
    (anything with ``predict`` and no ``encode``) by its predicted scores, a bi-encoder by cosine."""
    from ..evaluation import STSEvaluator
    from ..evaluation.cross_encoder import CrossEncoderSTSEvaluator
    columns = {"STSb test": test_pairs, f"STSb train ({len(seen):,} pairs it trained on)": seen}
    table = {}
    for col, pairs in columns.items():
        cross_ev, bi_ev = CrossEncoderSTSEvaluator(list(pairs)), STSEvaluator(list(pairs))
        table[col] = {name: (bi_ev(m) if hasattr(m, "encode") else cross_ev(m)) for name, m in models.items()}
    return pd.DataFrame(table)


def with_paper_rows(ours: pd.DataFrame) -> pd.DataFrame:
    """Table 2's four STSb rows (cross-encoders named as such) above ``ours``, for display."""
    names = ("BERT-STSb-base", "SBERT-STSb-base", "BERT-NLI-STSb-base", "SBERT-NLI-STSb-base")
    theirs = pd.DataFrame({"STSb test": {f"paper: {n}{' (cross-encoder)' if n.startswith('BERT') else ''}":
                                         TABLE2_STSB[n][0] for n in names}})
    return pd.concat([theirs, ours]).round(2).astype(object).fillna("–")


def cross_vs_bi_report(ours: pd.DataFrame) -> str:
    """The cross-encoder's lead over SBERT on the same STSb pairs (rows 0 and 1 of ``ours``) against the
    paper's, and each one's seen − test gap."""
    acc = ours.iloc[:2, 0]
    t = TABLE2_STSB
    gaps = ", ".join(f"{name.split(',')[0][6:]} {row.iloc[1] - row.iloc[0]:+.1f}" for name, row in ours.iloc[:2].iterrows())
    return (f"cross-encoder − bi-encoder, same STSb pairs and start: {acc.iloc[0] - acc.iloc[1]:+.2f} on test "
            f"(paper: {t['BERT-STSb-base'][0] - t['SBERT-STSb-base'][0]:+.2f} on STSb only, "
            f"{t['BERT-NLI-STSb-base'][0] - t['SBERT-NLI-STSb-base'][0]:+.2f} after NLI + STSb)\n"
            f"seen − test pairs: {gaps}")


# ----------------------------------------------------------------------------- retrieve and re-rank
@dataclass
class RerankTask:
    """STSb test as a retrieval task: every first sentence of a pair with gold ≥ ``min_gold`` (not itself a
    candidate) is a query whose target is its second sentence, among all distinct second sentences."""
    queries: list[str]
    target_ids: list[int]
    candidates: list[str]


def rerank_task(pairs: Sequence, max_queries: int | None = None, min_gold: float = 4.0) -> RerankTask:
    candidates = list(dict.fromkeys(p.sentence2 for p in pairs))
    position = {s: i for i, s in enumerate(candidates)}
    known = [p for p in pairs if p.score >= min_gold and p.sentence1 not in position][:max_queries]
    return RerankTask([p.sentence1 for p in known], [position[p.sentence2] for p in known], candidates)


def rerank_table(rows: Mapping[str, tuple[list[list[dict]], float]], target_ids: Sequence[int],
                 ks: Sequence[int]) -> pd.DataFrame:
    """One row per ranking ``name -> (hits, ms per query)``: recall@k for ``ks``, MRR, and the time."""
    from ..search import rank_metrics
    return pd.DataFrame({name: {**rank_metrics(hits, target_ids, tuple(ks)), "ms per query": ms}
                         for name, (hits, ms) in rows.items()}).T


def rerank_effect(table: pd.DataFrame, extra_ms: float, reranker_spearman: float) -> str:
    """What re-ranking did on this run (row 0: retriever alone, row 1: re-ranked), in words."""
    mrr, r1 = table.filter(like="MRR").iloc[:, 0], table["recall@1"]
    d_mrr, d_r1 = round(mrr.iloc[1] - mrr.iloc[0], 3), round(r1.iloc[1] - r1.iloc[0], 3)
    signs = {np.sign(d_mrr), np.sign(d_r1)} - {0}
    effect = ("left unchanged" if not signs else "moved in opposite directions" if len(signs) == 2
              else "improved" if signs == {1} else "lowered")
    return (f"on this run re-ranking {effect} MRR and recall@1: MRR {mrr.iloc[0]:.3f} → {mrr.iloc[1]:.3f}, recall@1 "
            f"{r1.iloc[0]:.3f} → {r1.iloc[1]:.3f}, for {extra_ms:.0f} ms more per query (the re-ranker scored "
            f"{reranker_spearman:.2f} on STSb test above). It helps only where the re-ranker orders candidates "
            "better than the retriever.")


def timed(run: Callable[[], object], per: int) -> tuple[object, float]:
    """``run()``'s result and its wall time in ms per item (``per`` items)."""
    t0 = time.perf_counter()
    result = run()
    return result, 1000 * (time.perf_counter() - t0) / max(per, 1)


# ----------------------------------------------------------------------------- clustering
def purity(labels, clusters) -> float:
    """Label each cluster with its majority label; the share of items that then carry the right label."""
    from sklearn.metrics.cluster import contingency_matrix
    return float(contingency_matrix(labels, clusters).max(axis=0).sum() / len(labels))


def kmeans_table(embeddings: Mapping[str, np.ndarray], labels, k: int, seed: int,
                 purity: Callable = purity) -> pd.DataFrame:
    """k-means (``search.kmeans_clusters``) of each model's embeddings scored against ``labels``:
    ``purity`` (the notebook passes the student's), adjusted Rand index, normalised mutual information;
    one row per model."""
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
    from ..search import kmeans_clusters
    rows = {}
    for name, e in embeddings.items():
        km = kmeans_clusters(e, k, seed=seed)
        rows[name] = {"k-means purity": purity(labels, km), "k-means ARI": adjusted_rand_score(labels, km),
                      "k-means NMI": normalized_mutual_info_score(labels, km)}
    return pd.DataFrame(rows).T


def community_sweep(embeddings: Mapping[str, np.ndarray], labels, thresholds: Sequence[float], min_size: int,
                    detect: Callable, purity: Callable = purity) -> tuple[pd.DataFrame, dict]:
    """``detect(emb, threshold, min_size)`` (lists of row ids) for every model and threshold: how many
    communities, the largest, the share of rows in one, and the ``purity`` of the rows covered; also the
    communities themselves, keyed ``(model, threshold)``."""
    labels = np.asarray(labels)
    rows, found = {}, {}
    for name, e in embeddings.items():
        for th in thresholds:
            comms = [list(c) for c in detect(e, th, min_size)]
            covered = np.array([i for c in comms for i in c], dtype=int)
            comm_id = np.array([cid for cid, c in enumerate(comms) for _ in c], dtype=int)
            found[(name, th)] = comms
            rows[(name, th)] = {"communities": len(comms), "largest": max((len(c) for c in comms), default=0),
                                "share in a community": len(covered) / len(labels),
                                "purity (covered)": purity(labels[covered], comm_id) if len(covered) else float("nan")}
    table = pd.DataFrame(rows).T.astype({"communities": int, "largest": int})
    table.index.names = ["model", "threshold"]
    return table, found


def community_report(table: pd.DataFrame, found: dict, texts: Sequence[str], labels, model: str = "after",
                     show: int = 3) -> str:
    """Which models lump more than half of the rows into one community up to which threshold, then the
    ``show`` largest communities of ``model`` at its threshold with the most communities."""
    labels = np.asarray(labels)
    lines = []
    for name in table.index.get_level_values(0).unique():
        rows = table.loc[name]
        lumped = rows[rows["largest"] > 0.5 * len(texts)]
        if len(lumped):
            lines.append(f"{name}: up to threshold {lumped.index.max()} one community holds more than half of the "
                         "questions — its cosines are high for any pair (anisotropy).")
    best = table.loc[model, "communities"].idxmax()
    comms = found[(model, best)]
    lines.append(f"\ntrained model, threshold {best}: {len(comms)} communities; the largest {show}:")
    for c in comms[:show]:
        types, counts = np.unique(labels[c], return_counts=True)
        lines.append(f"  {len(c)} questions, mostly {types[counts.argmax()]} ({counts.max()}/{len(c)}): "
                     + " | ".join(texts[i] for i in c[:3]))
    return "\n".join(lines)


# ----------------------------------------------------------------------------- indexes
def nprobe_sweep(ivf, queries, exact_ids, k: int, recall: Callable, extra: Sequence[int] = (),
                 timing_queries: int = 50) -> pd.DataFrame:
    """recall@k (by ``recall(ids, exact_ids, k)``) and the median latency of one query at nprobe = 1, 2,
    4 … 64, ``extra`` and ``nlist``; the index's own nprobe is left as it was."""
    from ..search import faiss_search
    old, rows = ivf.nprobe, []
    try:
        for p in sorted(({1, 2, 4, 8, 16, 32, 64, ivf.nlist} | set(extra)) & set(range(1, ivf.nlist + 1))):
            ivf.nprobe = p
            _, ids = faiss_search(ivf, queries, k)
            times = []
            for q in np.asarray(queries)[:timing_queries]:
                t0 = time.perf_counter()
                faiss_search(ivf, q[None, :], k)
                times.append(time.perf_counter() - t0)
            rows.append({"nprobe": p, f"recall@{k}": float(recall(ids, exact_ids, k)),
                         "median latency (ms)": 1000 * float(np.median(times))})
    finally:
        ivf.nprobe = old
    return pd.DataFrame(rows).set_index("nprobe")


def scale_table(per_vector_ns: float, bytes_per_vector: int, ram_gb: float,
                ns: Sequence[int] = (10_000, 1_000_000, 100_000_000, 1_000_000_000)) -> pd.DataFrame:
    """Flat search extrapolated: ms per query (linear in n), the vectors' GB, and machines of ``ram_gb``."""
    return pd.DataFrame({f"{n:,}": {"flat ms / query": n * per_vector_ns / 1e6,
                                    "vectors (GB)": n * bytes_per_vector / 1e9,
                                    f"machines of {ram_gb:g} GB": int(np.ceil(n * bytes_per_vector / 1e9 / ram_gb))}
                         for n in ns}).T


def index_report(synth_table: pd.DataFrame, real_table: pd.DataFrame, k: int, n_synth: int, n_real: int) -> str:
    """IVF's and HNSW's speed-up over flat search on the synthetic corpus, both indexes' recall@k on each
    corpus, and, where IVF recalls more on the synthetic corpus, why."""
    rec = f"recall@{k}"
    speedup = synth_table.loc["flat", "latency_ms"] / synth_table["latency_ms"]
    text = (f"synthetic ({n_synth:,} vectors): IVF {speedup['ivf']:.0f}× and HNSW {speedup['hnsw']:.0f}× faster than flat, "
            f"{rec} {synth_table.loc['ivf', rec]:.3f} / {synth_table.loc['hnsw', rec]:.3f}\n"
            f"real ({n_real:,} sentences): {rec} IVF {real_table.loc['ivf', rec]:.3f} ({real_table.loc['ivf', 'params']}), "
            f"HNSW {real_table.loc['hnsw', rec]:.3f}")
    if synth_table.loc["ivf", rec] > real_table.loc["ivf", rec]:
        text += ("\nIVF recall is higher on the synthetic corpus: its tight, well-separated clusters line up with IVF's "
                 "cells. Real sentence\nembeddings are spread more evenly, so a neighbour more often sits in a cell that "
                 "was not visited.")
    return text


def brute_force_limit(per_vector_ns: float, budget_ms: float) -> float:
    """How many vectors flat search scans within ``budget_ms`` per query, at ``per_vector_ns`` per vector."""
    return budget_ms * 1e6 / per_vector_ns


def brute_force_report(per_vector_ns: float, bytes_per_vector: int, budget_ms: float, n_corpus: int,
                       measured_on: str) -> str:
    """The measured time per vector, up to what corpus size flat search meets ``budget_ms``, where the
    notebook's corpus of ``n_corpus`` sits, and the bytes per vector."""
    limit = brute_force_limit(per_vector_ns, budget_ms)
    return (f"measured here: {per_vector_ns:.1f} ns per vector per query (flat, {measured_on}); flat stays within "
            f"{budget_ms:.0f} ms per query up to about {limit:,.0f} vectors (this notebook's real corpus, {n_corpus:,} "
            f"sentences: {'within' if n_corpus <= limit else 'past'} it); {bytes_per_vector:,} bytes per vector")


def models_report(cross, cross_history, cache_dir, bi_stsb, stsb_was_on_disk: bool, two_stage, seconds: float) -> str:
    """Where notebook 12's STSb models came from: the cross-encoder's training (steps, loss, seconds, cache),
    whether SBERT on the same pairs and the two-stage model were loaded, and each one's maximum length."""
    return (f"{cross}: {len(cross_history.records)} steps of {cross_history.loss}, {cross_history.seconds:.0f} s of "
            f"training (ready in {seconds:.0f} s; cached under {cache_dir})\n"
            f"SBERT on the same STSb pairs: "
            + ("loaded from disk (saved by notebook 05, or by an earlier run of this one)" if stsb_was_on_disk
               else "not on disk, so this notebook trained it just now (as notebook 05 would)")
            + "; two-stage model: "
            + ("loaded" if two_stage is not None else "not trained yet — run notebook 05 to add it below")
            + f"; maximum length: cross-encoder {cross.max_seq_length} tokens per pair, SBERT {bi_stsb.max_seq_length} "
              "per sentence")
