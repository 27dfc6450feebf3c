import math

import pytest
import torch

from forecast.nn.hopfield import HopfieldPooling, hopfield_retrieve


def test_one_update_is_softmax_beta_k_q_times_v():
    keys = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])[None, None]  # (1, 1, 3, 2)
    values = torch.tensor([[10.0], [20.0], [30.0]])[None, None]  # (1, 1, 3, 1)
    query = torch.tensor([[2.0, 0.0]])  # (nh=1, d_k=2)
    pooled, weights = hopfield_retrieve(query, keys, values, beta=0.5)
    e = torch.exp(torch.tensor([1.0, 0.0, 1.0]))  # beta * K q = [1, 0, 1]
    p = e / e.sum()
    torch.testing.assert_close(weights[0, 0, 0], p)
    torch.testing.assert_close(pooled[0, 0, 0], (p * torch.tensor([10.0, 20.0, 30.0])).sum())


def test_iterated_updates_use_the_retrieved_pattern_as_next_query(seed):
    keys, values = torch.randn(2, 3, 7, 4), torch.randn(2, 3, 7, 5)
    query = torch.randn(3, 4)
    beta = 0.8
    pooled, weights = hopfield_retrieve(query, keys, values, beta, update_steps=3)
    assert pooled.shape == (2, 3, 5) and weights.shape == (2, 3, 3, 7)
    xi = query.expand(2, 3, 4)
    for s in range(3):
        p = torch.softmax(beta * (keys @ xi[..., None]).squeeze(-1), dim=-1)  # (B, nh, T)
        torch.testing.assert_close(weights[:, s], p)
        xi = (p[..., None] * keys).sum(-2)
    torch.testing.assert_close(pooled, (p[..., None] * values).sum(-2))
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 3, 3))
    with pytest.raises(ValueError, match="update_steps"):
        hopfield_retrieve(query, keys, values, beta, update_steps=0)


def test_large_beta_retrieves_the_most_similar_pattern_only(seed):
    keys, values = torch.randn(4, 2, 9, 6), torch.randn(4, 2, 9, 3)
    query = torch.randn(2, 6)
    pooled, weights = hopfield_retrieve(query, keys, values, beta=1e4)
    best = (keys @ query[None, :, :, None]).squeeze(-1).argmax(-1)  # (B, nh)
    one_hot = torch.nn.functional.one_hot(best, 9).float()
    torch.testing.assert_close(weights[:, 0], one_hot, atol=1e-5, rtol=0)
    chosen = torch.gather(values, 2, best[..., None, None].expand(4, 2, 1, 3)).squeeze(2)
    torch.testing.assert_close(pooled, chosen, atol=1e-4, rtol=0)
    _, soft = hopfield_retrieve(query, keys, values, beta=1e-3)  # small beta: near uniform
    torch.testing.assert_close(soft, torch.full_like(soft, 1 / 9), atol=1e-2, rtol=0)


def test_pooling_module_shapes_and_weights(seed):
    pool = HopfieldPooling(3, hidden_size=8, n_heads=2, update_steps=2, num_layers=2)
    assert pool.beta == pytest.approx(1 / math.sqrt(4)) and pool.output_size == 8
    assert pool.recurrent is False
    x = torch.randn(5, 12, 3)
    y, state = pool(x)
    assert y.shape == (5, 1, 8) and state is None
    w = pool.association_weights(x)
    assert w.shape == (5, 2, 2, 12)
    torch.testing.assert_close(w.sum(-1), torch.ones(5, 2, 2))
    assert HopfieldPooling(3, 8, n_heads=2, beta=3.0).beta == 3.0
    with pytest.raises(ValueError, match="divisible by n_heads"):
        HopfieldPooling(3, 6, n_heads=4)


def test_positions_let_retrieval_tell_equal_steps_apart(seed):
    pool = HopfieldPooling(1, hidden_size=8, n_heads=2).eval()
    x = torch.ones(1, 10, 1)  # every step the same value: only the position differs
    w = pool.association_weights(x)[0, 0]  # (nh, T)
    assert float(w.max() - w.min()) > 1e-4
    y, _ = pool(x)
    y2, _ = pool(torch.ones(1, 10, 1) * 2)
    assert not torch.allclose(y, y2)
