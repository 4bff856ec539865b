import numpy as np
import pytest
import torch

from sbertlib.model import similarity as S


def test_matrices_match_definitions():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(4, 5)).astype(np.float32), rng.normal(size=(3, 5)).astype(np.float32)
    cos = (a / np.linalg.norm(a, axis=1, keepdims=True)) @ (b / np.linalg.norm(b, axis=1, keepdims=True)).T
    assert np.allclose(S.cos_sim(a, b).numpy(), cos, atol=1e-6)
    assert np.allclose(S.dot_score(a, b).numpy(), a @ b.T, atol=1e-5)
    man = -np.abs(a[:, None] - b[None]).sum(-1)
    euc = -np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1))
    assert np.allclose(S.neg_manhattan(a, b).numpy(), man, atol=1e-4)
    assert np.allclose(S.neg_euclidean(a, b).numpy(), euc, atol=1e-4)
    for m in S.MEASURES:
        full = S.similarity_matrix(a[:3], b, m).numpy()
        assert np.allclose(S.pairwise(a[:3], b, m).numpy(), np.diag(full), atol=1e-4)


def test_vectors_torch_and_errors():
    v = torch.tensor([1.0, 0.0])
    assert S.cos_sim(v, v).shape == (1, 1)
    assert S.cos_sim(np.zeros(2), np.ones(2)).item() == 0.0  # zero vector: cosine 0, not NaN
    with pytest.raises(ValueError, match="unknown measure"):
        S.similarity_matrix(v, measure="jaccard")
    with pytest.raises(ValueError, match="equal shapes"):
        S.pairwise(np.ones((2, 3)), np.ones((3, 3)))


def test_one_table_of_measures_serves_search_evaluation_and_losses():
    from sbertlib.losses import TripletLoss
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(5, 4, generator=g), torch.randn(5, 4, generator=g)
    for name, m in S.MEASURES.items():
        assert torch.allclose(S.pairwise(a, b, name), torch.diag(S.similarity_matrix(a, b, name)), atol=1e-5)
        assert torch.allclose(m.distance(a, b), -m.pairwise(a, b) + (1 if name == "cosine" else 0), atol=1e-6)
    loss = TripletLoss(torch.nn.Linear(1, 1), distance="euclidean", margin=1.0)  # loss on given vectors
    want = torch.relu((a - b).norm(dim=1) - (a - 2 * b).norm(dim=1) + 1).mean()
    assert torch.allclose(loss.loss_from_embeddings([a, b, 2 * b]), want)
