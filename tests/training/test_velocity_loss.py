"""The velocity term of the training loss (forecast.training.losses.VelocityLoss)."""

import pytest
import torch

from forecast.training.losses import LeadWeightedLoss, VelocityLoss, masked_mse, training_loss


def test_velocity_loss_by_hand():
    pred = torch.tensor([[[1.0], [3.0]]])  # (1, h=2, C=1)
    target = torch.tensor([[[1.0], [1.0]]])
    # values: errors 0, 2 -> mse 2; step changes of the error (from 0): 0, 2 -> mse 2
    loss = VelocityLoss(masked_mse, 0.5, [1.0])
    assert float(loss(pred, target)) == pytest.approx(2.0 + 0.5 * 2.0)
    # a scale of 2 per channel halves the changes: mse of (0, 1) = 0.5
    assert float(VelocityLoss(masked_mse, 1.0, [2.0])(pred, target)) == pytest.approx(2.5)


def test_velocity_term_sees_jitter_that_values_alone_weigh_less():
    target = torch.zeros(1, 4, 1)
    smooth = torch.full((1, 4, 1), 1.0)  # offset, no jitter: changes (1, 0, 0, 0)
    jitter = torch.tensor([[[1.0], [-1.0], [1.0], [-1.0]]])  # same value error, jittering
    loss = VelocityLoss(masked_mse, 1.0, [1.0])
    assert float(masked_mse(smooth, target)) == float(masked_mse(jitter, target))
    assert float(loss(jitter, target)) > float(loss(smooth, target))


def test_training_loss_wraps_lead_weights_around_the_velocity_term():
    fn = training_loss(None, "mse", None, (1.0, 1.0), velocity=(0.5, (1.0,)))
    assert isinstance(fn, LeadWeightedLoss) and isinstance(fn.base, VelocityLoss)
    assert training_loss(None, "mse", velocity=(0.0, (1.0,))) is masked_mse
    with pytest.raises(ValueError, match="not quantiles"):
        training_loss((0.1, 0.5, 0.9), velocity=(1.0, (1.0,)))
    with pytest.raises(ValueError, match="no separate velocity term"):
        training_loss(None, "mse", (1.0,), velocity=(1.0, (1.0,)))


def test_channel_weights_multiply_each_channels_elements():
    pred = torch.tensor([[[1.0, 2.0], [1.0, 2.0]]])  # (1, h=2, C=2)
    target = torch.zeros(1, 2, 2)
    # squared errors 1 and 4 per step; channel weights 1.5 and 0.5: (1.5 + 2) / 2
    fn = training_loss(None, "mse", channel_weight=(1.5, 0.5))
    assert float(fn(pred, target)) == pytest.approx((1.5 * 1 + 0.5 * 4) / 2)
    both = training_loss(None, "mse", lead_weight=(2.0, 0.0), channel_weight=(1.5, 0.5))
    assert float(both(pred, target)) == pytest.approx(2 * (1.5 * 1 + 0.5 * 4) / 4)
