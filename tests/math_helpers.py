"""A helper module: functions compiled from another module than the caller's."""
import numpy as np

OFFSET = np.float64(0.25)


def softplus(x):
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)
