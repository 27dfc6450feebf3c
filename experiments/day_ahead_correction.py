"""How much a network's correction of a reference forecast carries, from saved forecasts.

Reads two files written by ``experiments/day_ahead_neural.py --save-forecasts DIR`` on the same
period (the reference, and a network with that reference) and prints the RMS of the
correction (network minus reference), the RMS of the reference's error, their correlation,
and the MAPE with the correction scaled by 0, 0.25, ..., 1.25::

    python experiments/day_ahead_neural.py linear-lag --period val --save-forecasts DIR
    python experiments/day_ahead_neural.py referenced-hopfield --period val --reference linear \\
        --set horizon=38 learning_rate=0.0005 --save-forecasts DIR
    python experiments/day_ahead_correction.py DIR/val_linear-lag_0.parquet \\
        DIR/val_referenced-hopfield_0.parquet
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from forecast.evaluation import metrics


def main() -> None:  # noqa: D103
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference", help="saved forecasts of the reference")
    parser.add_argument("network", help="saved forecasts of the network with that reference")
    args = parser.parse_args()
    ref, net = pd.read_parquet(args.reference), pd.read_parquet(args.network)
    if not (ref["time"].to_numpy() == net["time"].to_numpy()).all():
        raise ValueError(f"{args.reference} and {args.network} forecast different times")
    truth = ref["y_true"].to_numpy()
    correction = net["y_pred"].to_numpy() - ref["y_pred"].to_numpy()
    error = truth - ref["y_pred"].to_numpy()
    print(f"correction RMS {np.sqrt(np.mean(correction**2)):.0f}")
    print(f"reference error RMS {np.sqrt(np.mean(error**2)):.0f}")
    print(f"correlation {np.corrcoef(correction, error)[0, 1]:.3f}")
    for scale in (0.0, 0.25, 0.5, 0.75, 1.0, 1.25):
        pred = ref["y_pred"].to_numpy() + scale * correction
        print(f"scale {scale:.2f}: MAPE {metrics.mape(truth, pred):.3f} %")


if __name__ == "__main__":
    main()
