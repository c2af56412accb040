"""A non-contiguous view passed to a function the compiler outlines (its own func.func) is read with its strides.

Regression: function boundaries were bufferized with identity layouts, so the call cast a strided subview
(`x[:, :3]` of a 5x6 array) to a contiguous memref and the callee read the wrong elements: `np.cumprod(x[:, :3],
axis=-1)`, `np.einsum("ii", x[:5, :5])`, and any user helper that copies its argument and writes the copy."""
import numpy as np
import pytest

from helpers import assert_same
from transpiler import transpile


def _running_product(a):
    result = a.copy()
    result[:, 1] = result[:, 0] * result[:, 1]
    result[:, 2] = result[:, 1] * result[:, 2]
    return result


def helper_of_a_column_slice(x):
    return _running_product(x[:, :3])


def helper_of_a_copied_slice(x):
    return _running_product(x[:, :3].copy())


def cumprod_of_a_column_slice(x):
    return np.cumprod(x[:, :3], axis=-1), np.cumsum(x[:, 1:4], axis=1)


def cumprod_of_a_copy(x):
    return np.cumprod(x[:, :3].copy(), axis=-1)


def trace_of_a_slice(x):
    return np.einsum("ii", x[:5, :5]), np.einsum("ii->", x[:5, 1:6])


def transposed_and_stepped(x):
    return _running_product(x.T[:, ::2]), np.cumprod(x[::-2, 1:], axis=1)


@pytest.mark.parametrize("fn", [helper_of_a_column_slice, helper_of_a_copied_slice, cumprod_of_a_column_slice,
                                cumprod_of_a_copy, trace_of_a_slice, transposed_and_stepped])
@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.float32, np.complex128])
@pytest.mark.parametrize("shape", [(5, 6), (7, 9)])
def test_views_passed_to_outlined_functions_are_read_with_their_strides(fn, dtype, shape):
    x = (np.arange(np.prod(shape)).reshape(shape) % 7 + 1).astype(dtype)
    assert_same(transpile(fn)(x), fn(x))


def _scaled_sum(v):
    total = v.sum() * 2.0
    out = v * total - v.mean() + v.max() * v.min() + v.std() + np.abs(v).sum()
    return out / (1.0 + v.var()) + v.prod()


def rows_at_offsets(x):
    # x[1] and x[2, 1:] start past the buffer's first element: an identity-layout cast dropped their offsets
    return _scaled_sum(x[1]), _scaled_sum(x[2, 1:]), _scaled_sum(x[:, 2]), _scaled_sum(x[0])


def test_rows_at_offsets_passed_to_an_outlined_function():
    x = np.arange(1.0, 31.0).reshape(5, 6) / 7
    assert_same(transpile(rows_at_offsets)(x), rows_at_offsets(x))
