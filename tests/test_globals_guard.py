"""Module-level arrays are folded into the kernel as constants; a later change to them (rebinding the name, or
writing into a small array) is seen at the next call, which compiles again (issue #14: it was silently ignored)."""
import numpy as np
import pytest

from helpers import assert_same
from transpiler import transpile

SCALE = np.array([1.0, 2.0, 3.0])


def scaled(x):
    return x * SCALE


def test_a_changed_module_level_array_is_seen():
    global SCALE
    saved = SCALE
    try:
        f = transpile(scaled)
        x = np.ones(3)
        np.testing.assert_array_equal(f(x), [1.0, 2.0, 3.0])
        SCALE[0] = 10.0                                   # written in place
        np.testing.assert_array_equal(f(x), [10.0, 2.0, 3.0])
        SCALE = np.array([5.0, 5.0, 5.0])                 # rebound
        np.testing.assert_array_equal(f(x), [5.0, 5.0, 5.0])
        compilations = f.compilations
        f(x)
        assert f.compilations == compilations             # unchanged: no new compilation
    finally:
        SCALE = saved
        SCALE[0] = 1.0


LAYERS = [np.ones(3)]
TABLE = {"w": np.ones(3)}


def test_arrays_in_module_level_lists_and_dicts_are_guarded():
    """Regression: `LAYERS[0]` and `TABLE["w"]` were folded unguarded, so changing them later was ignored."""
    f, x = transpile(lambda x: x * LAYERS[0] + TABLE["w"]), np.arange(3.0)
    try:
        np.testing.assert_array_equal(f(x), x + 1)
        LAYERS[0][:] = 2                                  # written in place
        TABLE["w"] = np.full(3, 5.0)                      # rebound
        np.testing.assert_array_equal(f(x), 2 * x + 5)
        LAYERS.clear()                                    # gone: NumPy's IndexError, at the next call
        with pytest.raises(IndexError):
            f(x)
    finally:
        LAYERS[:] = [np.ones(3)]
        TABLE["w"] = np.ones(3)


def test_a_loop_over_a_module_level_list_of_arrays_is_guarded():
    """Regression: an unrolled `for w in LAYERS:` folded the arrays it met; a rebound item or a longer list was
    ignored."""
    def chain(x):
        for w in LAYERS:
            x = x * w
        return x

    f, x = transpile(chain), np.arange(3.0) + 1
    try:
        np.testing.assert_array_equal(f(x), x)
        LAYERS[0] = np.full(3, 4.0)                       # an item rebound
        np.testing.assert_array_equal(f(x), 4 * x)
        LAYERS.append(np.full(3, 2.0))                    # the list grew
        np.testing.assert_array_equal(f(x), 8 * x)
        assert f.compilations == 3
    finally:
        LAYERS[:] = [np.ones(3)]


def test_enumerate_zip_and_dict_values_of_module_level_containers_are_guarded():
    def walk(x):
        for i, w in enumerate(LAYERS):
            x = x * w + i
        for w, v in zip(LAYERS, LAYERS):
            x = x + w * v
        for t in TABLE.values():
            x = x - t
        return x

    f, x = transpile(walk), np.arange(3.0)
    try:
        np.testing.assert_array_equal(f(x), walk(x))
        LAYERS[0] = np.full(3, 3.0)
        np.testing.assert_array_equal(f(x), walk(x))
        TABLE["v"] = np.full(3, 0.5)                      # a new key
        np.testing.assert_array_equal(f(x), walk(x))
        assert f.compilations == 3
    finally:
        LAYERS[:] = [np.ones(3)]
        TABLE.clear()
        TABLE["w"] = np.ones(3)


class Table:
    values = np.ones(3)   # a class attribute: folded, and guarded like a module-level array


class Settings:
    def __init__(self):
        self.values = np.ones(3)


SETTINGS = Settings()    # a module-level object: its arrays are folded too


@pytest.mark.parametrize("holder", [Table, SETTINGS], ids=["class attribute", "module-level object's attribute"])
def test_an_attribute_array_of_a_module_level_class_or_object_is_guarded(holder):
    """Regression: only module attributes were guarded, so `SETTINGS.values` or `Table.values` changed in place or
    rebound was read stale from the folded constant."""
    f, x = transpile(lambda x: x * holder.values), np.arange(3.0)
    saved = holder.values
    try:
        np.testing.assert_array_equal(f(x), x)
        holder.values[:] = 3
        np.testing.assert_array_equal(f(x), 3 * x)
        holder.values = np.full(3, 4.0)
        np.testing.assert_array_equal(f(x), 4 * x)
    finally:
        holder.values = saved
        saved[:] = 1


BIG = np.ones((200, 100))   # 160 KB: above globals_guard.MAX_COMPARED_BYTES, so not compared at each call


def test_a_large_module_level_array_changed_in_place_is_read_not_stale():
    """Regression: arrays above 64 KiB were folded into the kernel and only their identity was checked, so a change
    in place was silently ignored. They are kernel inputs now, read at every call; folding stops at them, so a
    computation over them (BIG.sum(), np.sqrt(BIG[0])) runs at every call too."""
    from transpiler.runtime.globals_guard import MAX_COMPARED_BYTES
    assert BIG.nbytes > MAX_COMPARED_BYTES

    def f(x):
        return x @ BIG + np.sqrt(BIG[0]).sum()

    compiled, x = transpile(f), np.ones((2, 200))
    try:
        np.testing.assert_allclose(compiled(x), f(x), rtol=1e-12)
        BIG[3, :] = 7.0                                   # in place, in the middle
        BIG[0, 0] = 9.0
        np.testing.assert_allclose(compiled(x), f(x), rtol=1e-12)
        assert compiled.compilations == 1                 # read, not recompiled
        assert "7.000000e+00" not in compiled.emit(x)     # not a constant of the kernel
    finally:
        BIG[:] = 1.0


def test_writing_into_a_large_module_level_array_is_refused():
    def f(x):
        BIG[0, 0] = 5.0
        return x

    with pytest.raises(TypeError, match="mutating a module-level array"):
        transpile(f)(np.ones(2))
    assert BIG[0, 0] == 1.0


BIG_LIST = [np.ones(20000), np.ones(20000)]
BIG_TABLE = {"a": np.ones(20000)}


def test_large_arrays_through_zip_enumerate_and_values_are_read_at_every_call():
    def f(x):
        for i, (w, v) in enumerate(zip(BIG_LIST, BIG_LIST)):
            x = x + w[:3] * v[:3] + i
        for t in BIG_TABLE.values():
            x = x - t[:3]
        return x

    compiled, x = transpile(f), np.arange(3.0)
    try:
        np.testing.assert_array_equal(compiled(x), f(x))
        BIG_LIST[1][:3] = 4.0
        BIG_TABLE["a"][:3] = 2.0
        np.testing.assert_array_equal(compiled(x), f(x))
        assert compiled.compilations == 1
    finally:
        BIG_LIST[1][:] = 1.0
        BIG_TABLE["a"][:] = 1.0


PARAMS = {"blocks": [np.ones(3)]}


def test_a_container_replaced_inside_a_module_level_container_is_seen():
    def f(x):
        for w in PARAMS["blocks"]:
            x = x * w
        return x

    compiled, x = transpile(f), np.arange(3.0)
    try:
        np.testing.assert_array_equal(compiled(x), x)
        PARAMS["blocks"] = [np.full(3, 2.0), np.full(3, 3.0)]
        np.testing.assert_array_equal(compiled(x), 6 * x)
    finally:
        PARAMS["blocks"] = [np.ones(3)]


def test_a_module_level_container_rebound_is_seen():
    global PARAMS

    def f(x):
        return x * PARAMS["blocks"][0]

    compiled, x = transpile(f), np.arange(3.0)
    saved = PARAMS
    try:
        np.testing.assert_array_equal(compiled(x), x)
        PARAMS = {"blocks": [np.full(3, 5.0)]}
        np.testing.assert_array_equal(compiled(x), 5 * x)
    finally:
        PARAMS = saved


def test_views_of_a_large_module_level_array_returned_are_views_of_it():
    def views():
        return BIG[None], BIG[5:], BIG

    first, second, same = transpile(views)()
    assert same is BIG and np.shares_memory(first, BIG) and np.shares_memory(second, BIG)


# Module-level values other than arrays are folded too: each is guarded, so a change compiles again (they ran stale).
K_SCALE = 2
FLAG = True
EPS = 1e-5
NP_SCALE = np.float32(2.0)
COEFFS = [1.0, 2.0]
TABLE_OF_NUMBERS = {"s": 1.0}
OUT_DTYPE = np.float32


def _double(v):
    return v * 2


ACTIVATION = _double


class Constants:
    SHIFT = 1.0


CONSTANTS = Settings()
CONSTANTS.offset = 1.0


def _scalar_globals(x):
    y = x * K_SCALE + EPS if FLAG else x - EPS
    y = y * NP_SCALE + COEFFS[0] + sum(c for c in COEFFS) * TABLE_OF_NUMBERS["s"]
    return ACTIVATION(y).astype(OUT_DTYPE) + Constants.SHIFT + CONSTANTS.offset


@pytest.mark.parametrize("change", [
    lambda g: g.update(K_SCALE=5), lambda g: g.update(FLAG=False), lambda g: g.update(EPS=0.5),
    lambda g: g.update(NP_SCALE=np.float32(3.0)), lambda g: g["COEFFS"].__setitem__(0, 10.0),
    lambda g: g["COEFFS"].append(3.0), lambda g: g["TABLE_OF_NUMBERS"].__setitem__("s", 4.0),
    lambda g: g.update(OUT_DTYPE=np.float64), lambda g: g.update(ACTIVATION=np.sqrt),
    lambda g: setattr(Constants, "SHIFT", 7.0), lambda g: setattr(CONSTANTS, "offset", -3.0)],
    ids=["int", "bool", "float", "numpy-scalar", "list-item", "list-append", "dict-item", "dtype", "function",
         "class-attribute", "object-attribute"])
def test_a_changed_module_level_number_function_or_list_is_seen(change):
    g = globals()
    saved = {k: g[k] for k in ("K_SCALE", "FLAG", "EPS", "NP_SCALE", "OUT_DTYPE", "ACTIVATION")}
    coeffs, table = list(COEFFS), dict(TABLE_OF_NUMBERS)
    try:
        f, x = transpile(_scalar_globals), np.arange(4.0)
        assert_same(f(x), _scalar_globals(x))
        change(g)
        assert_same(f(x), _scalar_globals(x))
        compilations = f.compilations
        g["EPS"] = float(repr(g["EPS"]))     # rebound to an equal float (another object): not compiled again
        assert_same(f(x), _scalar_globals(x))
        assert f.compilations == compilations
    finally:
        g.update(saved)
        COEFFS[:] = coeffs
        TABLE_OF_NUMBERS.clear()
        TABLE_OF_NUMBERS.update(table)
        Constants.SHIFT, CONSTANTS.offset = 1.0, 1.0


class _Scaler:
    scale = 2.0                 # class attributes read through `self`: folded, so guarded
    offset = np.ones(3)

    def apply(self, x):
        return x * self.scale + self.offset


class _ScalerChild(_Scaler):
    pass


@pytest.mark.parametrize("change", [
    lambda: setattr(_Scaler, "scale", 5.0), lambda: setattr(_ScalerChild, "scale", 7.0),
    lambda: _Scaler.offset.__setitem__(0, -4.0), lambda: setattr(_Scaler, "offset", np.zeros(3))],
    ids=["base-class-number", "number-set-on-the-subclass", "array-in-place", "array-rebound"])
def test_a_changed_class_attribute_read_through_self_is_seen(change):
    """Regression: `self.scale` of a class attribute (the object's own attributes are the specialization key, its
    class's were not) was folded unguarded, so `Base.scale = 5.0` after compiling ran the stale kernel."""
    try:
        obj, x = _ScalerChild(), np.arange(3.0)
        f = transpile(_Scaler.apply)
        assert_same(f(obj, x), obj.apply(x))
        change()
        assert_same(f(obj, x), obj.apply(x))
    finally:
        _Scaler.scale, _Scaler.offset = 2.0, np.ones(3)
        if "scale" in vars(_ScalerChild):
            del _ScalerChild.scale


def test_a_free_variable_rebound_by_the_enclosing_function_is_seen():
    """Regression: a closure's free variables (numbers, lists of numbers, arrays) were folded unguarded, so the
    enclosing function rebinding one after compiling (`k = 5.0`) ran the stale kernel."""
    x = np.arange(4.0)
    k, coeffs, w = 2.0, [1.0], np.ones(4)

    def f(x):
        return x * k + coeffs[0] + w

    g = transpile(f)
    assert_same(g(x), f(x))
    k = 5.0
    assert_same(g(x), f(x))
    coeffs[0] = 10.0
    assert_same(g(x), f(x))
    w[1] = -3.0
    assert_same(g(x), f(x))
    w = np.zeros(4)
    assert_same(g(x), f(x))
    compilations = g.compilations
    assert_same(g(x), f(x))
    assert g.compilations == compilations
