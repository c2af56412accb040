"""Module-level arrays are folded into the kernel as constants; a later change to them (rebinding the name, or
writing into a small array) is seen at the next call, which compiles again (issue #14: it was silently ignored)."""
import functools
import math

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


class _Model:
    def __init__(self):
        self.w = np.ones(3)

    def forward(self, x):
        return x * 2.0

    @property
    def gain(self):
        return 3.0

    def __call__(self, x):
        return self.forward(x) + self.gain


_MODEL = _Model()


def _through_an_argument(m, x):
    return m(x)


def _through_a_module_level_object(x):
    return _MODEL(x)


@pytest.mark.parametrize("change", [
    lambda: setattr(_Model, "forward", lambda self, x: x * 5.0),
    lambda: setattr(_Model, "gain", property(lambda self: -1.0)),
    lambda: setattr(_Model, "__call__", lambda self, x: x - 1.0),
    lambda: setattr(_MODEL, "forward", lambda x: x + 100.0)],
    ids=["method", "property", "call", "method-set-on-the-object"])
@pytest.mark.parametrize("through", ["argument", "module-level-object"])
def test_a_method_or_property_replaced_after_compiling_is_seen(change, through):
    """Regression: methods and properties of a user's class were followed into their source unguarded, so
    `Model.forward = other` (monkeypatching, a mock) after compiling ran the stale kernel."""
    saved = dict(vars(_Model))
    try:
        x = np.arange(3.0)
        if through == "argument":
            f, run = transpile(_through_an_argument), (lambda: _through_an_argument(_MODEL, x))
            call = lambda: f(_MODEL, x)     # noqa: E731
        else:
            f, run = transpile(_through_a_module_level_object), (lambda: _through_a_module_level_object(x))
            call = lambda: f(x)             # noqa: E731
        assert_same(call(), run())
        change()
        if through == "argument" and "forward" in vars(_MODEL):
            return      # (an object's own attributes are its argument's key: a function attribute specializes)
        assert_same(call(), run())
        compilations = f.compilations
        assert_same(call(), run())
        assert f.compilations == compilations
    finally:
        for name in ("forward", "gain", "__call__"):
            setattr(_Model, name, saved[name])
        vars(_MODEL).pop("forward", None)


class _Layer:
    def __init__(self, scale):
        self.scale, self.w = scale, np.ones(3)


OBJECT_LAYERS = [_Layer(1.0), _Layer(2.0)]
OBJECT_TABLE = {"first": _Layer(3.0)}


def _object_layers(x):
    for layer in OBJECT_LAYERS:
        x = x * layer.scale + layer.w
    return x * OBJECT_LAYERS[0].scale + OBJECT_TABLE["first"].scale


def _follows_the_change(fn, change):
    """fn compiled gives Python's result before and after `change()`, and a further call compiles nothing new."""
    f, x = transpile(fn), np.arange(3.0)
    assert_same(f(x), fn(x))
    change()
    assert_same(f(x), fn(x))
    compilations = f.compilations
    assert_same(f(x), fn(x))
    assert f.compilations == compilations


@pytest.mark.parametrize("change", [
    lambda: setattr(OBJECT_LAYERS[1], "scale", 5.0), lambda: setattr(OBJECT_LAYERS[0], "scale", -1.0),
    lambda: setattr(OBJECT_TABLE["first"], "scale", 0.5), lambda: OBJECT_LAYERS.__setitem__(1, _Layer(4.0)),
    lambda: OBJECT_LAYERS.append(_Layer(3.0)), lambda: OBJECT_LAYERS[1].w.__setitem__(0, 9.0)],
    ids=["attribute-of-an-item-looped-over", "attribute-of-an-item-indexed", "attribute-of-a-dict-value",
         "item-rebound", "list-grown", "array-attribute-in-place"])
def test_attributes_of_objects_held_in_module_level_containers_are_seen(change):
    """Regression: the attributes of objects held in module-level lists and dicts were folded unguarded
    (`OBJECT_LAYERS[1].scale = 5.0` after compiling ran the stale kernel)."""
    saved = list(OBJECT_LAYERS), [(o.scale, o.w.copy()) for o in OBJECT_LAYERS], OBJECT_TABLE["first"].scale
    try:
        _follows_the_change(_object_layers, change)
    finally:
        OBJECT_LAYERS[:] = saved[0]
        for o, (scale, w) in zip(OBJECT_LAYERS, saved[1]):
            o.scale, o.w = scale, w
        OBJECT_TABLE["first"].scale = saved[2]


DEFAULT_COEFFS = [1.0, 2.0]
DEFAULT_WEIGHTS = np.ones(3)


def _with_defaults(x, c=DEFAULT_COEFFS, w=DEFAULT_WEIGHTS, *, k=2):
    return x * c[1] + w * k


def _calls_with_defaults(x):
    return _with_defaults(x)


def _own_default(x, k=2.0):
    return x * k


@pytest.mark.parametrize("change", [
    lambda: DEFAULT_COEFFS.__setitem__(1, 5.0), lambda: DEFAULT_WEIGHTS.__setitem__(0, -2.0),
    lambda: setattr(_with_defaults, "__defaults__", ([0.0, 7.0], np.zeros(3))),
    lambda: setattr(_with_defaults, "__kwdefaults__", {"k": 3})],
    ids=["default-list-mutated", "default-array-in-place", "defaults-rebound", "keyword-defaults-rebound"])
def test_changed_default_values_of_a_called_function_are_seen(change):
    """Regression: the default values a called function took were folded unguarded (`_with_defaults.__defaults__
    = ...`, or a mutable default changed in place, after compiling ran the stale kernel)."""
    saved = _with_defaults.__defaults__, _with_defaults.__kwdefaults__
    try:
        f, x = transpile(_calls_with_defaults), np.arange(3.0)
        assert_same(f(x), _calls_with_defaults(x))
        change()
        assert_same(f(x), _calls_with_defaults(x))
    finally:
        _with_defaults.__defaults__, _with_defaults.__kwdefaults__ = saved
        DEFAULT_COEFFS[1], DEFAULT_WEIGHTS[0] = 2.0, 1.0


def test_the_compiled_functions_own_defaults_rebound_are_seen():
    """Regression: the compiled function bound its arguments with the signature taken when it was decorated."""
    saved = _own_default.__defaults__
    try:
        f, x = transpile(_own_default), np.arange(3.0)
        assert_same(f(x), _own_default(x))
        _own_default.__defaults__ = (7.0,)
        assert_same(f(x), _own_default(x))
    finally:
        _own_default.__defaults__ = saved


def _numpy_and_math(x):
    return np.tanh(x) + math.exp(1.0)


def test_a_numpy_or_math_function_replaced_after_compiling_is_seen():
    """Regression: `np.tanh` and `math.exp` were folded as the functions they were when compiling; replacing them
    (monkeypatching) ran the stale kernel. They are guarded by identity, a namespace's names in one compare."""
    saved = np.tanh, math.exp
    try:
        f, x = transpile(_numpy_and_math), np.arange(3.0)
        assert_same(f(x), _numpy_and_math(x))
        np.tanh = np.sin
        assert_same(f(x), _numpy_and_math(x))
        math.exp = math.sqrt
        assert_same(f(x), _numpy_and_math(x))
        compilations = f.compilations
        assert_same(f(x), _numpy_and_math(x))
        assert f.compilations == compilations
    finally:
        np.tanh, math.exp = saved


def _scaled_by(x, k):
    return x * k


SCALE_BY_TWO = functools.partial(_scaled_by, k=2.0)


def _through_a_partial(x):
    return SCALE_BY_TWO(x)


def test_a_module_level_partial_whose_arguments_change_is_seen():
    """Regression: a module-level functools.partial was guarded by identity only; its keywords (a dict that can be
    changed in place) were folded."""
    try:
        f, x = transpile(_through_a_partial), np.arange(3.0)
        assert_same(f(x), _through_a_partial(x))
        SCALE_BY_TWO.keywords["k"] = 9.0
        assert_same(f(x), _through_a_partial(x))
    finally:
        SCALE_BY_TWO.keywords["k"] = 2.0


class _Holder:
    def __init__(self):
        self.s, self.w = 2.0, np.ones(3)


HELD = _Holder()
MIXED = {"w": np.ones(3), "eps": 2.0}
PAIR = [np.ones(3), 2.0]
HELD_LIST = [_Holder(), _Holder()]


def _indirect_reads(x):
    w, eps = PAIR                                   # unpacked
    y = x * w * eps * getattr(HELD, "s") + MIXED.get("w") * MIXED["eps"] + HELD.__dict__["s"]
    for k, v in MIXED.items():
        if k == "eps":
            y = y + v
    for h in HELD_LIST[1:]:                         # a slice: a new list of the module's items
        y = y * h.s
    return y


@pytest.mark.parametrize("change", [
    lambda: PAIR.__setitem__(1, 5.0), lambda: PAIR.__setitem__(0, np.full(3, 3.0)),
    lambda: setattr(HELD, "s", 4.0), lambda: MIXED.__setitem__("w", np.full(3, 2.0)),
    lambda: MIXED.__setitem__("eps", 7.0), lambda: setattr(HELD_LIST[1], "s", 0.5),
    lambda: HELD_LIST.__setitem__(1, _Holder())],
    ids=["unpacked-number", "unpacked-array", "getattr-and-__dict__", "dict-get", "number-beside-arrays",
         "attribute-through-a-slice", "item-of-a-slice-rebound"])
def test_module_level_values_read_indirectly_are_seen(change):
    """Regression: values read from module-level containers and objects other than by `x.attr` / `x[i]` were
    folded unguarded: unpacking (`w, eps = PAIR`), `getattr(HELD, "s")`, `MIXED.get("w")`, `HELD.__dict__["s"]`,
    a number in a dict that also holds arrays (`MIXED["eps"]`, `.items()`), a slice (`HELD_LIST[1:]`)."""
    saved = list(PAIR), HELD.s, dict(MIXED), list(HELD_LIST), HELD_LIST[1].s
    try:
        HELD_LIST[1].s = 3.0
        _follows_the_change(_indirect_reads, change)
    finally:
        PAIR[:], HELD.s, HELD_LIST[:] = saved[0], saved[1], saved[3]
        MIXED.clear()
        MIXED.update(saved[2])
        HELD_LIST[1].s = saved[4]


ACTIVATIONS = {"act": np.tanh, "dtype": np.float32}
STEPS = [np.sqrt]


def _functions_in_containers(x):
    for step in STEPS:
        x = step(x)
    return ACTIVATIONS["act"](x).astype(ACTIVATIONS["dtype"])


@pytest.mark.parametrize("change", [
    lambda: ACTIVATIONS.__setitem__("act", np.sin), lambda: ACTIVATIONS.__setitem__("dtype", np.float64),
    lambda: STEPS.__setitem__(0, np.exp)], ids=["function-in-a-dict", "dtype-in-a-dict", "function-in-a-list"])
def test_functions_and_dtypes_held_in_module_level_containers_are_seen(change):
    """Regression: a function or dtype held in a module-level dict or list (`ACTIVATIONS["act"]`, a loop over
    `STEPS`) was folded unguarded; replacing it after compiling ran the stale kernel."""
    saved = dict(ACTIVATIONS), list(STEPS)
    try:
        f, x = transpile(_functions_in_containers), np.arange(3.0)
        assert_same(f(x), _functions_in_containers(x))
        change()
        assert_same(f(x), _functions_in_containers(x))
    finally:
        ACTIVATIONS.update(saved[0])
        STEPS[:] = saved[1]


def _calls_its_partial(x, p):
    return p(x)


def test_a_partial_argument_whose_keywords_change_compiles_again_and_one_of_arrays_is_refused():
    """Regression: a functools.partial passed as an argument specialized by identity only, so its keywords changed
    in place (`p.keywords["k"] = 9.0`) ran the stale kernel; its arguments are now part of the key. Arrays in it
    would be folded unguarded: refused."""
    f, x = transpile(_calls_its_partial), np.arange(3.0)
    p = functools.partial(_scaled_by, k=2.0)
    assert_same(f(x, p), _calls_its_partial(x, p))
    p.keywords["k"] = 9.0
    assert_same(f(x, p), _calls_its_partial(x, p))
    assert_same(f(x, functools.partial(np.multiply, 3.0)), 3.0 * x)
    with pytest.raises(TypeError, match="functools.partial"):
        f(x, functools.partial(_scaled_by, k=np.ones(3)))


class _PassedClass:
    eps = 2.0


def _reads_a_class_argument(x, cls):
    return x * cls.eps


def test_a_class_passed_as_an_argument_whose_attribute_changes_is_seen():
    """Regression: a class passed as an argument specializes by identity; the numbers read from it were folded
    unguarded (`f(x, Cfg)`, then `Cfg.eps = 5.0`, ran the stale kernel)."""
    try:
        f, x = transpile(_reads_a_class_argument), np.arange(3.0)
        assert_same(f(x, _PassedClass), _reads_a_class_argument(x, _PassedClass))
        _PassedClass.eps = 5.0
        assert_same(f(x, _PassedClass), _reads_a_class_argument(x, _PassedClass))
    finally:
        _PassedClass.eps = 2.0


def test_a_source_file_edited_after_its_import_is_refused_not_compiled(tmp_path, monkeypatch):
    """Regression: the compiler reads a function's source from its file; edited after the module was imported
    (without a reload), the file held another body than the one Python runs, and the kernel computed the new one
    (`x * 30` where the function returns `x * 2`). The definition is compiled and compared with the running code."""
    import importlib
    import linecache
    module = tmp_path / "edited_after_import.py"
    module.write_text("def f(x):\n    return x * 2\n\n\ndef g(x):\n    return x + 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    edited = importlib.import_module("edited_after_import")
    # (another size: a reload below must not take the bytecode cached for the first text, same size, same second)
    module.write_text("def f(x):\n    return x * 30\n\n\ndef g(x):\n    return x + 1\n")
    linecache.checkcache(str(module))
    x = np.arange(3.0)
    with pytest.raises(TypeError, match="was changed after the function was loaded"):
        transpile(edited.f)(x)
    assert_same(transpile(edited.g)(x), edited.g(x))      # unchanged: compiled
    importlib.reload(edited)
    assert_same(transpile(edited.f)(x), 30 * x)



@pytest.mark.parametrize("before, after", [
    ("x * 2 + y", "x + 2 * y"), ("x - y", "y - x"), ("x * 2", "x ** 2"), ("np.where(x < y, x, y)", "np.where(x <= y, x, y)"),
    ("x if k > 0 and k < 5 else y", "x if k > 0 or k < 5 else y"), ("-x + y", "+x + y")],
    ids=["operator", "operands-swapped", "power", "comparison", "and-or", "unary"])
def test_a_source_edit_of_operators_only_is_refused(tmp_path, monkeypatch, before, after):
    """Regression: the source check compared the definition's constants and names with the running code's, as sets;
    an edit of operators only (`+` to `*`, `a - b` to `b - a`, `<` to `<=`) kept them and the kernel computed the
    new text. The order of operators, operands and constants is compared too."""
    import importlib
    import linecache
    module = tmp_path / f"operators_edited_{abs(hash(before))}.py"
    text = "import numpy as np\n\n\ndef f(x, y, k=3):\n    return {}\n"
    module.write_text(text.format(before))
    monkeypatch.syspath_prepend(str(tmp_path))
    edited = importlib.import_module(module.stem)
    module.write_text(text.format(after) + " " * 40)   # (another size: a reload must not take the cached bytecode)
    linecache.checkcache(str(module))
    x, y = np.arange(4.0), np.full(4, 1.5)
    with pytest.raises(TypeError, match="was changed after the function was loaded"):
        transpile(edited.f)(x, y)
    importlib.reload(edited)
    assert_same(transpile(edited.f)(x, y), edited.f(x, y))


def _doubled(x):
    return x * 2


def _tripled(x):
    return x * 3


def _calls_doubled(x):
    return _doubled(x) + 1


def test_a_function_whose_code_is_replaced_in_place_compiles_again():
    """Regression: `f.__code__ = other.__code__` after compiling kept the old kernel (the function object, its
    globals and defaults were the same); also for a helper it calls. Both are guarded by identity of the code."""
    saved = _doubled.__code__
    try:
        f, g = transpile(_doubled), transpile(_calls_doubled)
        x = np.arange(3.0)
        assert_same(f(x), x * 2)
        assert_same(g(x), x * 2 + 1)
        _doubled.__code__ = _tripled.__code__
        assert_same(f(x), x * 3)
        assert_same(g(x), x * 3 + 1)
        compilations = f.compilations, g.compilations
        assert_same(f(x), x * 3)
        assert_same(g(x), x * 3 + 1)
        assert (f.compilations, g.compilations) == compilations
    finally:
        _doubled.__code__ = saved

class _MangledNames:
    def apply(self, x):
        __twice = x * 2          # a private name: mangled to _MangledNames__twice in the class body
        return __twice + 1


def test_a_method_with_private_names_is_not_taken_for_an_edited_source():
    """The check that a definition's source is the running code's compiles it alone, where Python does not mangle
    private names: they are compared unmangled (without, this method was refused as edited)."""
    x = np.arange(3.0)
    assert_same(transpile(_MangledNames.apply)(_MangledNames(), x), _MangledNames().apply(x))


WEIGHTED = functools.partial(_scaled_by, k=np.ones(3))


def _through_a_partial_of_an_array(x):
    return WEIGHTED(x)


def test_an_array_held_by_a_module_level_partial_changed_in_place_is_seen():
    """Regression: the arrays a functools.partial holds were folded unguarded (`WEIGHTED.keywords["k"][0] = 5.0`
    after compiling ran the stale kernel)."""
    try:
        f, x = transpile(_through_a_partial_of_an_array), np.arange(3.0) + 1
        assert_same(f(x), _through_a_partial_of_an_array(x))
        WEIGHTED.keywords["k"][0] = 5.0
        assert_same(f(x), _through_a_partial_of_an_array(x))
    finally:
        WEIGHTED.keywords["k"][0] = 1.0


def _with_a_lambda_default(x, pred=lambda v: v > 0):
    return np.where(pred(x), x, 0.0) * 2


def test_a_function_with_a_lambda_default_is_not_taken_for_an_edited_source():
    """Regression: the source check compiled the definition alone and compared the first code object it held, the
    default's lambda (compiled before the function): such a function was refused as edited after its import."""
    x = np.linspace(-1.0, 1.0, 5)
    assert_same(transpile(_with_a_lambda_default)(x), _with_a_lambda_default(x))


_BIG = np.arange(20000.0)          # (160 KB: a kernel input, not folded)
_SMALL_ZEROS = np.zeros(4)


def _sums_big(x):
    return _BIG.sum(axis=-1) + x


def _first_of_big(x):
    return _BIG[:3] + x


def _small_zeros(x):
    return _SMALL_ZEROS + x


def test_a_module_level_array_whose_shape_or_dtype_changes_in_place_compiles_again():
    """Regression: a big module-level array is a kernel input of the shape and dtype it had when compiling; one
    changed in place (`W.shape = (100, 200)`, `W.dtype = np.int64`: the same object, the same contents) was read
    with the old ones: a sum over all 20000 elements where NumPy sums each row, the old dtype's values. Also a small
    folded array of zeros, whose contents compare equal as another dtype (float64 where NumPy's sum is int64)."""
    try:
        for fn, change, x in [(_sums_big, lambda: setattr(_BIG, "shape", (100, 200)), np.ones(1)),
                              (_first_of_big, lambda: setattr(_BIG, "dtype", np.int64), np.ones(1)),
                              (_small_zeros, lambda: setattr(_SMALL_ZEROS, "dtype", np.int64), np.ones(1, np.int32))]:
            f = transpile(fn)
            assert_same(f(x), fn(x))
            change()
            assert_same(f(x), fn(x))
    finally:
        _BIG.dtype, _BIG.shape, _SMALL_ZEROS.dtype = np.float64, (20000,), np.float64
