"""The exercise checks of notebooks 09–12: each passes a right answer and rejects wrong ones."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from sbertlib import search
from sbertlib.workbook.lessons import ExerciseError, nb09, nb10, nb11, nb12


# ----------------------------------------------------------------------------- nb09: separation
def good_separation(emb, labels):
    x = np.asarray(emb, dtype=np.float64)
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    cos = x @ x.T
    lab = np.asarray(labels)
    same = lab[:, None] == lab[None, :]
    return float(cos[same & ~np.eye(len(x), dtype=bool)].mean() - cos[~same].mean())


def sep_with_diagonal(emb, labels):  # counts each sentence paired with itself
    x = np.asarray(emb, dtype=np.float64)
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    cos, lab = x @ x.T, np.asarray(labels)
    same = lab[:, None] == lab[None, :]
    return float(cos[same].mean() - cos[~same].mean())


def sep_dot_product(emb, labels):  # forgets to normalise
    x = np.asarray(emb, dtype=np.float64)
    cos, lab = x @ x.T, np.asarray(labels)
    same = lab[:, None] == lab[None, :]
    return float(cos[same & ~np.eye(len(x), dtype=bool)].mean() - cos[~same].mean())


def sep_per_label(emb, labels):  # averages the per-label means instead of all pairs
    x = np.asarray(emb, dtype=np.float64)
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    cos, lab = x @ x.T, np.asarray(labels)
    intra, inter = [], []
    for c in np.unique(lab):
        m = lab == c
        block = cos[np.ix_(m, m)]
        if m.sum() > 1:
            intra.append(block[~np.eye(m.sum(), dtype=bool)].mean())
        inter.append(cos[np.ix_(m, ~m)].mean())
    return float(np.mean(intra) - np.mean(inter))


def _data(seed: int = 0, n: int = 40):
    rng = np.random.default_rng(seed)
    labels = rng.choice(["a", "b", "c"], size=n).tolist()
    centres = {k: rng.standard_normal(16) for k in "abc"}
    x = np.stack([centres[l] for l in labels]) + rng.standard_normal((n, 16)) + 2.0
    return x.astype(np.float32), labels


def test_nb09_separation_right_answer_passes_and_returns_truth(capsys):
    x, labels = _data()
    value = nb09.check_separation(good_separation, x, labels)
    assert value == pytest.approx(nb09.separation_truth(x, labels))
    nb09.check_separation(good_separation)  # hidden data only
    nb09.check_separation(good_separation, torch.from_numpy(x), labels)  # a tensor works too
    assert capsys.readouterr().out.count("[OK]") == 3


def test_nb09_separation_truth_on_a_tiny_case():
    x = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    # same-label pairs have cosine 1, different-label pairs cosine 0
    assert nb09.separation_truth(x, ["p", "p", "q", "q"]) == pytest.approx(1.0)
    # same-label pairs (0,2), (1,3): cosine 0; different-label pairs: two of cosine 1, two of 0
    assert nb09.separation_truth(x, [0, 1, 0, 1]) == pytest.approx(-0.5)


@pytest.mark.parametrize("wrong, hint", [  # issue 29: each slip got the same recipe hint
    (sep_with_diagonal, "leave the diagonal out"),
    (sep_dot_product, "dot products: normalise the rows"),
    (sep_per_label, "averages per label first"),
    (lambda emb, labels: -good_separation(emb, labels), "the wrong way round"),
    (lambda emb, labels: None, "one finite number"),
    (lambda emb, labels: [good_separation(emb, labels)] * 2, "one finite number"),  # not one number
])
def test_nb09_separation_wrong_answers_fail(wrong, hint):
    x, labels = _data()
    with pytest.raises(ExerciseError, match=hint):
        nb09.check_separation(wrong, x, labels)


@pytest.mark.parametrize("not_a_function", [None, Ellipsis, 0.12])
def test_nb09_separation_non_functions_fail(not_a_function):
    with pytest.raises(ExerciseError, match="function"):
        nb09.check_separation(not_a_function)


def test_nb09_unfinished_stub_fails_with_a_clear_message():
    def stub(emb, labels):
        raise NotImplementedError
    with pytest.raises(ExerciseError, match="not done yet"):
        nb09.check_separation(stub)
    with pytest.raises(ExerciseError, match="not done yet"):
        nb09.check_nn_agreement(stub)


def test_nb09_wrong_shape_data_is_rejected():
    x, labels = _data()
    with pytest.raises(ExerciseError):
        nb09.check_separation(good_separation, x, labels[:-3])  # labels do not match rows
    with pytest.raises(ExerciseError):
        nb09.check_separation(good_separation, x[0], labels)  # one vector, not a matrix


# ----------------------------------------------------------------------------- nb09: nearest-neighbour agreement
def good_nn(emb, labels):
    x = np.asarray(emb, dtype=np.float64)
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    cos = x @ x.T
    np.fill_diagonal(cos, -np.inf)
    lab = np.asarray(labels)
    return float(np.mean(lab[cos.argmax(axis=1)] == lab))


def nn_including_self(emb, labels):
    x = np.asarray(emb, dtype=np.float64)
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    lab = np.asarray(labels)
    return float(np.mean(lab[(x @ x.T).argmax(axis=1)] == lab))


def nn_dot_product(emb, labels):
    x = np.asarray(emb, dtype=np.float64)
    s = x @ x.T
    np.fill_diagonal(s, -np.inf)
    lab = np.asarray(labels)
    return float(np.mean(lab[s.argmax(axis=1)] == lab))


def nn_farthest(emb, labels):
    x = np.asarray(emb, dtype=np.float64)
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    cos = x @ x.T
    np.fill_diagonal(cos, np.inf)
    lab = np.asarray(labels)
    return float(np.mean(lab[cos.argmin(axis=1)] == lab))


def test_nb09_nn_agreement_right_answer_passes(capsys):
    x, labels = _data(3)
    value = nb09.check_nn_agreement(good_nn, x, labels)
    assert value == pytest.approx(nb09.nn_agreement_truth(x, labels))
    assert "[OK]" in capsys.readouterr().out


def test_nb09_nn_truth_on_a_tiny_case():
    x = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    assert nb09.nn_agreement_truth(x, ["a", "a", "b", "b"]) == pytest.approx(1.0)
    assert nb09.nn_agreement_truth(x, ["a", "b", "a", "b"]) == pytest.approx(0.0)


@pytest.mark.parametrize("wrong, hint", [  # issue 29: each slip got the same recipe hint
    (nn_including_self, "its own nearest neighbour"),
    (nn_dot_product, "nearest by dot product"),
    (nn_farthest, "least\\* similar"),
    (lambda emb, labels: 1.0, "expected"),
    (lambda emb, labels: "0.5", "one finite number"),
    (lambda emb, labels: ..., "one finite number"),
])
def test_nb09_nn_agreement_wrong_answers_fail(wrong, hint):
    x, labels = _data(3)
    with pytest.raises(ExerciseError, match=hint):
        nb09.check_nn_agreement(wrong, x, labels)


# ----------------------------------------------------------------------------- nb10: paraphrase without overlap
class _Constant:
    """An encoder that gives every sentence the same vector: cosine 1 for any pair."""
    def encode(self, sentences):
        return np.ones((len(sentences), 4))


@pytest.mark.parametrize("a, b", [
    ("A kid plays.", "Kids playing."),                     # kid/kids, plays/playing
    ("The children are running.", "A child runs."),        # irregular plural, doubled consonant
    ("A dog barked loudly.", "The dogs bark."),
    ("A woman slices onions.", "Someone is slicing an onion."),
])
def test_nb10_rejects_pairs_sharing_a_word_up_to_inflection(a, b):
    with pytest.raises(ExerciseError, match="share") as err:
        nb10.check_paraphrase_without_overlap(a, b, _Constant())
    assert "e.g." not in str(err.value) and "puppy" not in str(err.value)  # issue 29: the hint held a passing answer


@pytest.mark.parametrize("a, b", [
    ("The kid is laughing.", "A child giggles."),
    ("A man is playing a guitar.", "Someone strums an instrument."),
    ("A puppy sleeps.", "The young dog naps."),
])
def test_nb10_accepts_a_paraphrase_without_overlap(a, b, capsys):
    assert nb10.check_paraphrase_without_overlap(a, b, _Constant()) == pytest.approx(1.0)
    assert "[OK]" in capsys.readouterr().out


def test_nb10_stemmer_and_stopwords():
    assert nb10.stem("kids") == nb10.stem("kid") == "kid"
    assert nb10.stem("playing") == nb10.stem("plays") == nb10.stem("played") == "play"
    assert nb10.stem("running") == nb10.stem("runs") == "run"
    assert nb10.stem("giggles") == nb10.stem("giggling")
    assert nb10.content_words("Someone is strumming an instrument.") == {"strum", "instrument"}
    assert nb10.shared_content_words("A kid plays.", "Kids playing.") == {"kid": (["kid"], ["kids"]),
                                                                        "play": (["plays"], ["playing"])}


def test_nb10_low_cosine_still_fails():
    class Orthogonal:
        def encode(self, sentences):
            return np.eye(len(sentences), 4)
    with pytest.raises(ExerciseError, match="Cosine"):
        nb10.check_paraphrase_without_overlap("The kid is laughing.", "Stocks fell sharply.", Orthogonal())


# ----------------------------------------------------------------------------- nb11: token-budget batches
def good_budget(lengths, max_tokens):
    return cut_by_budget(sorted(range(len(lengths)), key=lambda i: -lengths[i]), lengths, max_tokens)


def cut_by_budget(order, lengths, max_tokens):
    """Batches of ``order`` (longest first), each cut before it would pass ``max_tokens`` padded tokens."""
    batches, batch = [], []
    for i in order:
        if batch and (len(batch) + 1) * lengths[batch[0]] > max_tokens:
            batches.append(batch)
            batch = []
        batch.append(i)
    return batches + [batch] if batch else batches


def test_nb11_token_budget_right(capsys):
    nb11.check_token_budget_batches(good_budget)
    nb11.check_token_budget_batches(lambda l, m: [np.array(b) for b in good_budget(l, m)])  # arrays are fine
    assert capsys.readouterr().out.count("[OK]") == 2


def test_nb11_token_budget_truth_is_what_the_encoder_does(tmp_path):
    from sbertlib.model.encoder import SentenceEncoder
    enc = SentenceEncoder.from_pretrained("tiny-random-bert")
    sents = ["a", "a much longer sentence than the first one", "two words", "three short words", "x y"]
    lengths = [len(x) for x in enc.tokenizer(sents, add_special_tokens=True)["input_ids"]]
    got = [sorted(p.tolist()) for p, _ in enc.batches(sents, 32, smart_batching=True, max_tokens=20)]
    assert got == [sorted(b) for b in nb11.token_budget_truth(lengths, 20)]


def _unsorted(lengths, m):
    batches, batch = [], []
    for i in range(len(lengths)):
        if batch and (len(batch) + 1) * max(lengths[j] for j in batch + [i]) > m:
            batches.append(batch)
            batch = []
        batch.append(i)
    return batches + [batch]


def _new_length(lengths, m):  # rows × the *new* sentence's length: batches overflow the budget
    order, batches, batch = sorted(range(len(lengths)), key=lambda i: -lengths[i]), [], []
    for i in order:
        if batch and (len(batch) + 1) * lengths[i] > m:
            batches.append(batch)
            batch = []
        batch.append(i)
    return batches + [batch]


@pytest.mark.parametrize("wrong, hint", [
    (_unsorted, "longest first"),
    (lambda l, m: good_budget(l, m)[:-1], "last"),
    (_new_length, "longest"),
    (lambda l, m: [list(range(len(l)))], None),
    (lambda l, m: None, None),
])
def test_nb11_token_budget_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb11.check_token_budget_batches(wrong)


# ----------------------------------------------------------------------------- nb12: recall@k
def good_recall(approx_ids, exact_ids, k):
    hits = [len(set(a[:k].tolist()) & set(e[:k].tolist())) for a, e in zip(approx_ids, exact_ids)]
    return float(np.mean(hits) / k)


def test_nb12_recall_right_answer_passes(capsys):
    nb12.check_recall_at_k(good_recall)
    nb12.check_recall_at_k(search.recall_at_k)  # the library's own
    assert capsys.readouterr().out.count("[OK]") == 2


@pytest.mark.parametrize("wrong", [
    lambda a, e, k: float((np.asarray(a)[:, :k] == np.asarray(e)[:, :k]).mean()),  # position by position
    lambda a, e, k: float(np.mean([len(set(x) & set(y)) for x, y in zip(a, e)]) / k),  # ignores the [:k] cut
    lambda a, e, k: float(np.mean([len(set(x[:k]) & set(y[:k])) for x, y in zip(a, e)])),  # a count, not a share
    lambda a, e, k: float(np.mean([len(set(x[:k]) & set(y[:k])) for x, y in zip(a, e)]) / np.shape(a)[1]),
    lambda a, e, k: None,
    lambda a, e, k: 1.0,
])
def test_nb12_recall_wrong_answers_fail(wrong):
    with pytest.raises(ExerciseError):
        nb12.check_recall_at_k(wrong)


@pytest.mark.parametrize("not_a_function", [None, Ellipsis, 0.9])
def test_nb12_recall_non_functions_fail(not_a_function):
    with pytest.raises(ExerciseError, match="function"):
        nb12.check_recall_at_k(not_a_function)


def test_nb12_recall_stub_says_not_done():
    def stub(a, e, k):
        raise NotImplementedError
    with pytest.raises(ExerciseError, match="not done yet"):
        nb12.check_recall_at_k(stub)


# ----------------------------------------------------------------------------- nb12: nprobe
@pytest.fixture(scope="module")
def ivf_setup():
    x = search.synthetic_corpus(3_100, dim=32, n_clusters=50, noise=3.0, seed=1)
    corpus, queries = x[:3_000], x[3_000:]
    _, exact = search.faiss_search(search.build_faiss_index(corpus, "flat"), queries, 10)
    index = search.build_faiss_index(corpus, "ivf", nlist=32, nprobe=1)
    recalls = {}
    for p in range(1, 32):
        index.nprobe = p
        recalls[p] = search.recall_at_k(search.faiss_search(index, queries, 10)[1], exact, 10)
    index.nprobe = 1
    return index, queries, exact, recalls


def test_nb12_nprobe_right_answer_passes_and_restores_the_index(ivf_setup, capsys):
    index, queries, exact, recalls = ivf_setup
    good = min(p for p, r in recalls.items() if r >= 0.95)
    assert good < 32 and recalls[1] < 0.95  # the fixture makes a real trade-off
    recall = nb12.check_nprobe(good, index, queries, exact, k=10, target=0.95)
    assert recall == pytest.approx(recalls[good])
    assert index.nprobe == 1
    nb12.check_nprobe(np.int64(good), index, queries, exact)  # a numpy integer is fine
    assert capsys.readouterr().out.count("[OK]") == 2


def test_nb12_nprobe_wrong_answers_fail(ivf_setup):
    index, queries, exact, recalls = ivf_setup
    too_small = max(p for p, r in recalls.items() if r < 0.95)
    for wrong in (too_small, 1, index.nlist, index.nlist + 5, 0, -3, None, ..., 8.0, "8", True):
        with pytest.raises(ExerciseError):
            nb12.check_nprobe(wrong, index, queries, exact, k=10, target=0.95)
    assert index.nprobe == 1


def test_nb12_nprobe_larger_than_the_smallest_fails_with_a_not_the_smallest_hint(ivf_setup):
    """Any nprobe above the smallest one reaching the target (e.g. the next power of two) is rejected."""
    index, queries, exact, recalls = ivf_setup
    good = min(p for p, r in recalls.items() if r >= 0.95)
    for wrong in sorted({good + 1, good + 2, 1 << good.bit_length(), index.nlist - 1} - {good}):
        if wrong < index.nlist and recalls[wrong] >= 0.95:
            with pytest.raises(ExerciseError, match="not the smallest"):
                nb12.check_nprobe(wrong, index, queries, exact, k=10, target=0.95)
    assert index.nprobe == 1


def test_nb12_nprobe_smallest_is_judged_on_every_smaller_value_not_only_the_next(ivf_setup):
    """Recall need not grow with every extra cell: the check looks at all smaller nprobe, so an
    answer whose neighbour below happens to dip under the target still fails if an even smaller one
    reaches it."""
    index, queries, exact, recalls = ivf_setup
    good = min(p for p, r in recalls.items() if r >= 0.95)
    lower_target = recalls[good] - 1e-9   # `good` reaches it, and maybe smaller ones too
    smallest = min(p for p, r in recalls.items() if r >= lower_target)
    for p in range(smallest + 1, index.nlist):
        with pytest.raises(ExerciseError, match="not the smallest"):
            nb12.check_nprobe(p, index, queries, exact, k=10, target=lower_target)
    nb12.check_nprobe(smallest, index, queries, exact, k=10, target=lower_target)


def test_nb12_nprobe_all_cells_gets_a_brute_force_hint(ivf_setup):
    index, queries, exact, _ = ivf_setup
    with pytest.raises(ExerciseError, match="brute force"):
        nb12.check_nprobe(index.nlist, index, queries, exact)


def test_nb12_nprobe_rejects_exact_ids_of_the_wrong_shape(ivf_setup):
    index, queries, exact, recalls = ivf_setup
    good = min(p for p, r in recalls.items() if r >= 0.95)
    with pytest.raises(ExerciseError):
        nb12.check_nprobe(good, index, queries, exact[:, :5], k=10)
    with pytest.raises(ExerciseError):
        nb12.check_nprobe(good, index, queries, exact[:-1], k=10)


# ----------------------------------------------------------------------------- nb12: top-k search
def _cosines(q, c):
    return torch.nn.functional.normalize(torch.as_tensor(q), dim=1) @ torch.nn.functional.normalize(
        torch.as_tensor(c), dim=1).T


def good_top_k(q, c, k):
    best = torch.topk(_cosines(q, c), k, dim=1)
    return best.values, best.indices


def test_nb12_top_k_right(capsys):
    nb12.check_top_k(good_top_k)
    nb12.check_top_k(lambda q, c, k: tuple(x.numpy() for x in good_top_k(q, c, k)))  # numpy is fine too
    assert "[OK]" in capsys.readouterr().out


def _flipped(q, c, k):
    v, i = good_top_k(q, c, k)
    return v.flip(1), i.flip(1)


@pytest.mark.parametrize("wrong, hint", [
    (lambda q, c, k: torch.topk(torch.as_tensor(q) @ torch.as_tensor(c).T, k, dim=1), "dot product"),
    (lambda q, c, k: torch.topk(_cosines(q, c), k, dim=1, largest=False), "LEAST similar"),
    (lambda q, c, k: (lambda d: (-d.values, d.indices))(torch.topk(torch.cdist(torch.as_tensor(q), torch.as_tensor(c)),
                                                                   k, dim=1, largest=False)), "Euclidean"),
    (_flipped, "wrong order"),
    (lambda q, c, k: (1 - good_top_k(q, c, k)[0], good_top_k(q, c, k)[1]), "cosine similarities themselves"),
    (lambda q, c, k: good_top_k(q, c, k)[1], "not a pair"),
    (lambda q, c, k: good_top_k(q, c, k + 1), "expected"),
])
def test_nb12_top_k_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb12.check_top_k(wrong)


# ----------------------------------------------------------------------------- nb11: precision
def good_bf16_round(x):
    bits = x.view(torch.int32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) & -65536).view(torch.float32)


def test_nb11_bf16_round_right(capsys):
    nb11.check_bf16_round(good_bf16_round)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda x: (x.view(torch.int32) & -65536).view(torch.float32), "truncates"),
    (lambda x: ((x.view(torch.int32) + 0x8000) & -65536).view(torch.float32), "always round up"),
    (lambda x: ((x.view(torch.int32) + 0x7FFF) & -65536).view(torch.float32), "always round down"),
    (lambda x: x.half().float(), "float16"),
    (lambda x: x, "unchanged"),
    (lambda x: (x.view(torch.int32) + 0x7FFF + ((x.view(torch.int32) >> 16) & 1)) & -65536,   # int32 bits
     "keep the value in float32"),
    (lambda x: x.numpy(), "not a tensor"),
    (lambda x: x.to(torch.bfloat16).float(), "converts to torch.bfloat16"),
    (lambda x: x.bfloat16().to(torch.float32), "converts to torch.bfloat16"),
    (lambda x: x.to(torch.bfloat16), "converts to torch.bfloat16"),
    (lambda x: x.type(torch.bfloat16).float(), "converts to torch.bfloat16"),
])
def test_nb11_bf16_round_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb11.check_bf16_round(wrong)


def bf16_round_in_place(x):
    """Right values, but rounds the caller's tensor: the view shares x's memory."""
    bits = x.view(torch.int32)
    bits += 0x7FFF + ((bits >> 16) & 1)
    bits &= -65536
    return x


def bf16_round_in_place_copy_out(x):
    """Rounds x in place, then hands back a copy: the result is right, the input is not kept."""
    bits = x.view(torch.int32)
    bits.add_(0x7FFF + ((bits >> 16) & 1)).bitwise_and_(-65536)
    return bits.view(torch.float32).clone()


@pytest.mark.parametrize("wrong", [bf16_round_in_place, bf16_round_in_place_copy_out])
def test_nb11_bf16_round_that_changes_its_input_is_rejected(wrong):
    x = torch.tensor([1.00390625, 3.14159, -2.71828])
    before = x.clone()
    assert torch.equal(wrong(x), before.to(torch.bfloat16).float())   # the values are right ...
    assert not torch.equal(x, before)                                 # ... but the caller's tensor is rounded
    with pytest.raises(ExerciseError, match="changed its input") as err:
        nb11.check_bf16_round(wrong)
    assert "shares x's memory" in str(err.value)


def test_nb11_bf16_round_leaves_the_notebooks_tensor_alone():
    """What cell 21 relies on: after the check, rounding a tensor keeps the original to compare with."""
    x = torch.randn(64) * 3
    before = x.clone()
    nb11.check_bf16_round(good_bf16_round)
    rounded = good_bf16_round(x)
    assert torch.equal(x, before) and (rounded - x).abs().max() > 0


def good_pick(rows, tol):
    return max((k for k in rows if abs(rows[k][1] - rows["fp32"][1]) <= tol), key=lambda k: rows[k][0])


def test_nb11_pick_precision_right_and_agrees_with_the_library(capsys):
    from sbertlib.model.precision import pick_precision
    nb11.check_pick_precision(good_pick)
    assert "[OK]" in capsys.readouterr().out
    for rows, tol, answer in nb11._choice_cases():
        table = [{"precision": k, "sent_per_s": s, "spearman": sp} for k, (s, sp) in rows.items()]
        assert pick_precision(table, tol) == answer


@pytest.mark.parametrize("wrong, hint", [
    (lambda r, t: max(r, key=lambda k: r[k][0]), "fastest is not always allowed"),
    (lambda r, t: max((k for k in r if r[k][1] - r["fp32"][1] <= t), key=lambda k: r[k][0]), "a loss counts"),
    (lambda r, t: max((k for k in r if r["fp32"][1] - r[k][1] <= t), key=lambda k: r[k][0]), "a gain beyond"),
    (lambda r, t: max(r, key=lambda k: r[k][1]), "not the highest score"),
    (lambda r, t: max((k for k in r if abs(r[k][1] - r["fp32"][1]) < t), key=lambda k: r[k][0]), "not <"),
    (lambda r, t: "fp32", "then take the fastest"),
])
def test_nb11_pick_precision_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb11.check_pick_precision(wrong)


# ----------------------------------------------------------------------------- issue 20: each slip named, no answer
def _padding(lengths, bs, sort, order=None, pad_to=None, drop_last=False):
    """The right padding share, or a usual slip: another order, one padded length, the last batch dropped."""
    idx = (order or (lambda l: sorted(range(len(l)), key=lambda i: -l[i])))(lengths) if sort else list(range(len(lengths)))
    slots = real = 0
    for s in range(0, len(idx), bs):
        batch = [lengths[i] for i in idx[s:s + bs]]
        if drop_last and len(batch) < bs:
            continue
        slots += (pad_to(lengths) if pad_to else max(batch)) * len(batch)
        real += sum(batch)
    return 1 - real / slots


@pytest.mark.parametrize("wrong, says", [
    (lambda l, b, s: _padding(l, b, s, pad_to=max), "longest of all the sentences (12 tokens)"),
    (lambda l, b, s: _padding(l, b, s, order=lambda x: sorted(range(len(x)), key=lambda i: x[i])),
     "you sorted shortest first"),
    (lambda l, b, s: _padding(l, b, s, drop_last=True), "you left out the last batch (1 sentence(s)"),
    (lambda l, b, s: _padding(l, b, False), "with sort=True you kept the input order"),
    (lambda l, b, s: 1 - _padding(l, b, s), "share of the slots holding real tokens"),
    (lambda l, b, s: 100 * _padding(l, b, s), "percentage"),
])
def test_nb11_padding_share_names_each_slip(wrong, says):
    with pytest.raises(ExerciseError) as err:
        nb11.check_padding_share(wrong)
    message = str(err.value)
    assert says in message
    assert f"lengths {nb11.PADDING_CASE[0]}" in message   # every length of the failing case, not the first six
    assert "1 − real tokens / slots" not in message and "real / slots" not in message


def test_nb11_padding_share_right_answer_still_passes(capsys):
    nb11.check_padding_share(lambda l, b, s: _padding(l, b, s))
    assert "[OK]" in capsys.readouterr().out


def _reversed_ties(lengths, max_tokens):  # an ascending sort, reversed: equal lengths come out last-first
    return cut_by_budget(sorted(range(len(lengths)), key=lambda i: lengths[i])[::-1], lengths, max_tokens)


def _shortest_first(lengths, max_tokens):  # ascending, costed by each batch's true longest member
    batches, batch = [], []
    for i in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        if batch and (len(batch) + 1) * max(lengths[j] for j in batch + [i]) > max_tokens:
            batches.append(batch)
            batch = []
        batch.append(i)
    return batches + [batch]


def _cut_at_budget(lengths, max_tokens):  # a batch that would cost exactly max_tokens is cut too early
    return nb11._budget_batches(lengths, max_tokens, strict=True)


@pytest.mark.parametrize("wrong, says, never", [
    (_reversed_ties, "not the sentences of equal length: sentences 1 and 2 both have 9 tokens", "≤ is fine"),
    (_cut_at_budget, "a batch that costs exactly max_tokens fits", "≤ is fine"),
    (_shortest_first, "you sorted shortest first", "≤ is fine"),
])
def test_nb11_token_budget_tie_order_and_cut_are_told_apart(wrong, says, never):
    with pytest.raises(ExerciseError) as err:
        nb11.check_token_budget_batches(wrong)
    assert says in str(err.value) and never not in str(err.value)


def test_nb11_bf16_tie_hint_gives_no_formula():
    for wrong in (lambda x: ((x.view(torch.int32) + 0x8000) & -65536).view(torch.float32),
                  lambda x: x.to(torch.bfloat16).float()):
        with pytest.raises(ExerciseError) as err:
            nb11.check_bf16_round(wrong)
        message = str(err.value)
        assert "0x7FFF" not in message and ">> 16" not in message and "lowest kept bit" not in message
    with pytest.raises(ExerciseError, match=r"1\.00390625 \(bits 0x3f808000\)"):   # a tie is the example shown
        nb11.check_bf16_round(lambda x: ((x.view(torch.int32) + 0x8000) & -65536).view(torch.float32))


def test_nb11_bf16_other_mistake_fallback_gives_no_formula():
    def off(x):  # nearest, ties to even — but on the negative values' magnitude rounded the wrong way
        r = good_bf16_round(x)
        return torch.where(x < 0, (x.view(torch.int32) & -65536).view(torch.float32), r)
    with pytest.raises(ExerciseError) as err:
        nb11.check_bf16_round(off)
    assert "0x7FFF" not in str(err.value) and "ties to even" in str(err.value)


def test_nb12_top_k_swapped_pair_is_named():
    with pytest.raises(ExerciseError, match=r"returned the row ids first and the scores second") as err:
        nb12.check_top_k(lambda q, c, k: tuple(reversed(good_top_k(q, c, k))))
    assert "normalise" not in str(err.value) and "topk" not in str(err.value)


def test_nb12_top_k_stub_does_not_name_the_method():
    import json
    from pathlib import Path
    nb = json.loads(next(Path(__file__).resolve().parents[1].glob("notebooks/12_*.ipynb")).read_text())
    stub = next(c["metadata"]["stub"] for c in nb["cells"] if "def top_k" in "".join(c["source"])
                and "stub" in c.get("metadata", {}))
    assert "YOUR CODE HERE" in stub
    for method in ("normalis", "topk", "matrix product", "argsort"):
        assert method not in stub.split('"""')[-1]   # the comment after the docstring


@pytest.mark.parametrize("wrong, says", [
    (lambda a, e, k: float((np.asarray(a)[:, :k] == np.asarray(e)[:, :k]).mean()), "position by position"),
    (lambda a, e, k: float(np.mean([len(set(x) & set(y)) for x, y in zip(a, e)]) / k), "the whole lists (10 ids each)"),
    (lambda a, e, k: float(np.mean([len(set(x[:k]) & set(y[:k])) for x, y in zip(a, e)])), "a count of ids found"),
    (lambda a, e, k: float(np.mean([len(set(x[:k]) & set(y[:k])) for x, y in zip(a, e)]) / np.shape(a)[1]),
     "divided by the length of the lists (10), not by k = 5"),
    (lambda a, e, k: float(np.sum([len(set(x[:k]) & set(y[:k])) for x, y in zip(a, e)]) / k), "a sum over the queries"),
])
def test_nb12_recall_slips_are_told_apart(wrong, says):
    with pytest.raises(ExerciseError) as err:
        nb12.check_recall_at_k(wrong)
    message = str(err.value)
    assert says in message
    assert "use sets" not in message and "divide by k, then average" not in message   # not the whole recipe


def test_nb12_nprobe_not_the_smallest_does_not_print_the_answer(ivf_setup):
    index, queries, exact, recalls = ivf_setup
    good = min(p for p, r in recalls.items() if r >= 0.95)
    wrong = next(p for p in range(good + 1, index.nlist) if recalls[p] >= 0.95)
    with pytest.raises(ExerciseError, match="not the smallest") as err:
        nb12.check_nprobe(wrong, index, queries, exact, k=10, target=0.95)
    message = str(err.value)
    assert f"nprobe={good}" not in message and f"nprobe = {good}" not in message
    assert not any(int(n) == good for n in __import__("re").findall(r"\b\d+\b", message.replace(str(wrong), "")))


@pytest.mark.parametrize("check, fn, says", [
    (nb11.check_padding_share, lambda l, b, s: max(l[i:i + b] for i in range(0, len(l), b)).sum(),
     r"`padding_share_by_hand` \(lengths \[5, 12, 3, 9, 7, 2, 11\], batch size 3, sort=False\) raised AttributeError"),
    (nb11.check_token_budget_batches, lambda l, m: sorted(l)[len(l)], r"`token_budget_batches` \(lengths .*raised IndexError"),
    (nb11.check_bf16_round, lambda x: x.view(torch.int32) + 0x7FFF + (x.view(torch.int32) >> 16) & 1 + x,
     r"`bf16_round` raised NotImplementedError: .*not implemented for 'Float'"),   # PyTorch's, not the stub's
    (nb11.check_pick_precision, lambda rows, tol: rows["fp16"], r"`pick_precision` \(rows .*raised KeyError"),
    (nb12.check_top_k, lambda q, c, k: torch.topk(torch.as_tensor(q) @ torch.as_tensor(c), k),
     r"`top_k` \(queries \(6, 16\), corpus \(40, 16\), k=1\) raised RuntimeError"),
])
def test_a_function_that_raises_is_told_as_the_students_error_with_their_line(check, fn, says):
    with pytest.raises(ExerciseError, match=says) as err:
        check(fn)
    shown = "\n".join(err.value._render_traceback_())
    assert "In your code:" in shown and "test_checks_nb09_12.py" in shown
    assert "sbertlib/workbook/lessons" not in shown


def test_nb12_recall_out_of_the_distinct_ids_found_is_named():
    """The student trial: dividing by the distinct ids of each list passed (no hidden case had -1 fillers)."""
    def per_distinct(a, e, k):
        return float(np.mean([len(set(x[:k].tolist()) & set(y[:k].tolist())) / max(1, len(set(x[:k].tolist())))
                              for x, y in zip(a, e)]))
    with pytest.raises(ExerciseError, match="divided by the number of distinct ids"):
        nb12.check_recall_at_k(per_distinct)


# ----------------------------------------------------------------------------- nb12: the usual slips named (issue 29)
def _skips_the_best(q, c, k):
    best = torch.topk(_cosines(q, c), k + 1, dim=1)   # "the first hit is the query itself"
    return best.values[:, 1:], best.indices[:, 1:]


def _ranks_along_axis_0_torch(q, c, k):
    best = torch.topk(_cosines(q, c), k, dim=0)       # each corpus row's best queries
    return best.values, best.indices


def _ranks_along_axis_0_numpy(q, c, k):
    sim = _cosines(q, c).numpy()
    return -np.sort(-sim, axis=0)[:, :k], np.argsort(-sim, axis=0)[:, :k]   # the right shape, the wrong axis


@pytest.mark.parametrize("wrong, says", [
    (lambda q, c, k: good_top_k(q, c, k + 1), "off by one: 2 columns where k = 1 were asked for"),
    (lambda q, c, k: good_top_k(q, c, k - 1), "off by one: 0 columns where k = 1 were asked for"),
    (_skips_the_best, "off by one: you skipped the best hit (column 0)"),
    (_ranks_along_axis_0_torch, "you ranked along axis 0, over the queries"),
    (_ranks_along_axis_0_numpy, "you ranked along axis 0, over the queries"),
])
def test_nb12_top_k_off_by_one_and_axis_0_are_named(wrong, says):
    with pytest.raises(ExerciseError) as err:
        nb12.check_top_k(wrong)
    message = str(err.value)
    assert says in message
    assert "one row per query, k columns" not in message and "cosine of every query" not in message  # not generic


def _pooled_isin(a, e, k):
    return float(np.isin(np.asarray(a)[:, :k], np.asarray(e)[:, :k]).mean())   # any query's neighbour counts


def _pooled_sets(a, e, k):
    found = set(np.asarray(a)[:, :k].ravel().tolist()) & set(np.asarray(e)[:, :k].ravel().tolist())
    return len(found) / (len(a) * k)


@pytest.mark.parametrize("wrong, says", [
    (lambda a, e, k: float(np.mean([len(set(x[:k - 1].tolist()) & set(y[:k - 1].tolist())) for x, y in zip(a, e)]) / k),
     "off by one: you counted the first k − 1 = 9 ids of each list, out of k;"),
    (lambda a, e, k: float(np.mean([len(set(x[:k - 1].tolist()) & set(y[:k - 1].tolist())) for x, y in zip(a, e)])
                           / (k - 1)), "off by one: you counted the first k − 1 = 9 ids of each list, out of k − 1;"),
    (_pooled_isin, "you pooled the queries: an id counts only when it is in the exact top-k of the *same* query"),
    (_pooled_sets, "you pooled the queries: an id counts only when it is in the exact top-k of the *same* query"),
])
def test_nb12_recall_k_minus_1_and_pooled_are_named(wrong, says):
    with pytest.raises(ExerciseError) as err:
        nb12.check_recall_at_k(wrong)
    message = str(err.value)
    assert says in message
    assert "per query, the share of the exact top-k ids" not in message   # not the generic hint


def test_nb12_recall_has_a_case_where_pooling_the_queries_shows():
    """Pooled over the queries, the last hidden case's every id is found (it is the next query's neighbour)."""
    approx, exact, k = nb12._hidden_id_lists()[-1]
    assert search.recall_at_k(approx, exact, k) == pytest.approx(0.5) and _pooled_isin(approx, exact, k) == 1.0
