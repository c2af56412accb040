"""Kernels of the `math` group: elementwise transcendental functions (backend/vector_math.py) as NumPy code uses
them."""
import numpy as np


def haversine(lat1, lon1, lat2, lon2):
    """Great-circle distances in km between points given in degrees (the arcsine form)."""
    lat1, lon1, lat2, lon2 = (np.pi / 180 * a for a in (lat1, lon1, lat2, lon2))
    a = np.sin((lat2 - lat1) / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6371.0 * np.arcsin(np.sqrt(a))


def haversine_atan2(lat1, lon1, lat2, lon2):
    """The same distances in the arctan2 form most code uses (2 arctan2(sqrt(a), sqrt(1 - a)), stable near
    antipodes)."""
    lat1, lon1, lat2, lon2 = (np.pi / 180 * a for a in (lat1, lon1, lat2, lon2))
    a = np.sin((lat2 - lat1) / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6371.0 * np.arctan2(np.sqrt(a), np.sqrt(1 - a))


def log_likelihood(x, mu, sigma):
    """Log-normal log-density, summed: log over every element, then a sum."""
    z = (np.log(x) - mu) / sigma
    return np.sum(-0.5 * z * z - np.log(x * sigma) - 0.9189385332046727)
