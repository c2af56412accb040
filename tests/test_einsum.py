"""np.einsum (stdlib/einsum.py): products, transpositions, diagonals and reductions against NumPy's einsum, with
its dtypes (int8 stays int8 and wraps), scalars for 0-d results, views for transpositions, and random subscripts."""
import numpy as np
import pytest

from transpiler import transpile
from transpiler.errors import CompileError

from helpers import check

RNG_SEED = 7
RNG = np.random.default_rng(RNG_SEED)

CASES = [("ij,jk->ik", (3, 4), (4, 5)), ("ij,jk", (3, 4), (4, 5)), ("ij->ji", (3, 4)), ("ii->i", (4, 4)),
         ("ii", (4, 4)), ("ij->", (3, 4)), ("ij->j", (3, 4)), ("i,i->", (4,), (4,)), ("i,i", (4,), (4,)),
         ("i,j->ij", (3,), (4,)), ("bij,jk->bik", (2, 3, 4), (4, 5)), ("...ij,jk->...ik", (2, 3, 4), (4, 5)),
         ("...ij,...jk", (2, 1, 3, 4), (5, 4, 2)), ("bij->b", (2, 3, 4)), ("ij,ij->i", (3, 4), (3, 4)),
         ("ij,j->i", (3, 4), (4,)), ("i,ij,jk->k", (3,), (3, 4), (4, 5)), ("ijk->kji", (2, 3, 4)),
         ("bhqd,bhkd->bhqk", (2, 3, 5, 4), (2, 3, 6, 4)), ("iij->j", (3, 3, 2)), ("ij,kl->ijkl", (2, 3), (1, 2)),
         ("i,i,i->", (5,), (5,), (5,)), ("ba,cb->ac", (4, 3), (2, 4))]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_einsum_matches_numpy(case):
    _matches(case, "float64")


# the default suite: each case on one of float32 and int8, in turn, and the two batched products on both (integer
# batched products are loops whose maps broadcast the batch dims: codegen/matmul.py); the slow suite: the others on
# the other dtype
@pytest.mark.parametrize("case, dtype", [
    pytest.param(case, dtype, id=f"{dtype}-{case[0]}", marks=[] if (i + j) % 2 == 0
                 or case[0] in ("...ij,...jk", "bhqd,bhkd->bhqk") else [pytest.mark.slow])
    for j, dtype in enumerate(["float32", "int8"]) for i, case in enumerate(CASES[::3])])
def test_einsum_keeps_numpys_dtype(case, dtype):
    """float32 stays float32; int8 stays int8 and wraps, as NumPy's einsum."""
    _matches(case, dtype)


def _matches(case, dtype):
    subscripts, *shapes = case
    ops = [(RNG.standard_normal(s) * (1 if dtype[0] == "f" else 60)).astype(dtype) for s in shapes]
    check(lambda *o: np.einsum(subscripts, *o), *ops, rtol=1e-5 if dtype == "float32" else None)


def test_mixed_dtypes_promote_as_numpy():
    check(lambda a, b: np.einsum("ij,j->i", a, b), RNG.random((3, 4)).astype(np.float32), RNG.random(4))
    check(lambda a, b: np.einsum("i,i", a, b), np.arange(4, dtype=np.int16), np.arange(4, dtype=np.int64))


def test_a_transposition_is_a_view_and_out_is_written():
    a = RNG.random((3, 4))
    t = transpile(lambda a: np.einsum("ij->ji", a))(a)
    assert np.shares_memory(t, a)

    def into(a, b, out):
        np.einsum("ij,jk->ik", a, b, out=out)
        return out.sum()
    check(into, a, RNG.random((4, 2)), np.zeros((3, 2)))


def test_random_subscripts():
    letters = "abcdef"
    for _ in range(25):
        size = {c: int(RNG.integers(1, 4)) for c in letters}
        terms = []
        for _ in range(int(RNG.integers(1, 4))):
            terms.append("".join(RNG.choice(list(letters), int(RNG.integers(0, 4)))))
        used = sorted(set("".join(terms)))
        output = "".join(c for c in used if RNG.random() < 0.5)
        subscripts = ",".join(terms) + "->" + output
        ops = [RNG.standard_normal(tuple(size[c] for c in t)) for t in terms]
        check(lambda *o: np.einsum(subscripts, *o), *ops)


def test_bad_subscripts_are_numpys_errors():
    with pytest.raises(CompileError, match="fewer operands"):
        transpile(lambda a: np.einsum("ij,jk", a))(np.ones((2, 2)))
    with pytest.raises(CompileError, match="too many subscripts"):
        transpile(lambda a: np.einsum("ijk", a))(np.ones((2, 2)))
    with pytest.raises(CompileError, match="never appeared"):
        transpile(lambda a: np.einsum("ij->k", a))(np.ones((2, 2)))


@pytest.mark.parametrize("subscripts,shapes", [
    ("ii->i", [(2, 3)]), ("ii", [(3, 1)]), ("ii->i", [(3, 0)]), ("iji->j", [(2, 4, 3)]),
    ("ij,jj->i", [(3, 3), (3, 1)])])
def test_a_repeated_label_over_unequal_dims_is_numpys_value_error(subscripts, shapes):
    """Regression: a label repeated in one operand took np.diagonal of unequal dims, a shorter diagonal, where NumPy
    raises ("dimensions in operand 0 for collapsing index 'i' don't match"): `np.einsum("ii->i", x)` of a (2, 3) x
    returned [x[0, 0], x[1, 1]]."""
    operands = [np.arange(float(np.prod(s))).reshape(s) for s in shapes]
    with pytest.raises(ValueError):
        np.einsum(subscripts, *operands)
    with pytest.raises(ValueError, match="collapsing index" if len(shapes) == 1 else None):
        transpile(lambda *o: np.einsum(subscripts, *o))(*operands)   # (two: the product's own check may come first)
    square = [np.arange(float(np.prod(s))).reshape(s) for s in [(3, 3)] * len(shapes)]
    if subscripts != "iji->j":
        check(lambda *o: np.einsum(subscripts, *o), *square)     # equal dims: compiled, NumPy's values


@pytest.mark.parametrize("subscripts,shapes", [
    ("ij,j->i", [(3, 4), (1,)]), ("i,i", [(1,), (4,)]), ("ij,jk->ik", [(3, 1), (4, 2)]),
    ("ij,ij->ij", [(3, 1), (3, 4)]), ("ij,ij->i", [(3, 4), (1, 4)]), ("ii,i->i", [(3, 3), (1,)]),
    ("bij,bjk->bik", [(1, 2, 3), (4, 3, 2)])])
def test_a_unit_dim_broadcasts_against_the_same_labels_larger_dim(subscripts, shapes):
    """Regression: NumPy's einsum broadcasts a label's dim of size 1 against that label's larger dim in another
    operand; compiled, these were ValueErrors (a reshape or matmul that did not fit) or, for `ij,ij->i` with one row
    of b, an internal compiler error."""
    rng = np.random.default_rng(0)
    check(lambda *o: np.einsum(subscripts, *o), *[rng.standard_normal(s) for s in shapes])
