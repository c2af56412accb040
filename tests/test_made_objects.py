"""Objects of the user's classes made in compiled code from run-time values (`Linear(w, b)(x)`, a dataclass of
statistics), and operators their classes define in Python (`a + b`, `v @ x`, `a == b`, `-a`): the __init__ and the
operator methods are compiled, attributes are this compilation's state (attributes.py), a returned object is made
anew at each call. They were refused ("Linear() is not supported on run-time arrays"); operators ran the user's
Python method while compiling, on the compiler's placeholders."""
import copy
from dataclasses import dataclass, field

import numpy as np
import pytest

from helpers import assert_same, check
from transpiler import CompileError, transpile

RNG = np.random.default_rng(5)


class Linear:
    def __init__(self, w, b):
        self.w = w
        self.b = b

    def __call__(self, x):
        return x @ self.w + self.b


class MLP:
    def __init__(self, w1, b1, w2, b2):
        self.layers = [Linear(w1, b1), Linear(w2, b2)]

    def __call__(self, x):
        for layer in self.layers:
            x = np.maximum(layer(x), 0)
        return x


@dataclass
class Stats:
    mean: np.ndarray
    var: np.ndarray
    eps: float = 1e-5
    count: int = field(default=0)


@dataclass(frozen=True)
class Frozen:
    a: np.ndarray

    def double(self):
        return self.a * 2


class Counter:
    def __init__(self, start):
        self.n = start

    def bump(self, k):
        self.n = self.n + k
        return self


class Box:
    def __init__(self, a):
        self.a = a


def one_layer(x, w, b):
    return Linear(w, b)(x)


def two_layers(x, w1, b1, w2, b2):
    return MLP(w1, b1, w2, b2)(x)


def normalize(x):
    s = Stats(x.mean(axis=0), x.var(axis=0))
    return (x - s.mean) / np.sqrt(s.var + s.eps)


def statistics(x):
    return Stats(x.mean(axis=0), x.var(axis=0), count=x.shape[0])


def frozen(x):
    o = Frozen(x)
    return o.double(), o


def counted(k):
    c = Counter(k)
    c.bump(2).bump(3)
    return c.n, c


def nested(x):
    return Box(Box(x * 2))


def attribute_queries(x):
    b = Box(x)
    return hasattr(b, "a"), hasattr(b, "c"), getattr(b, "c", 3)


def test_a_layer_made_in_compiled_code():
    x, w, b = RNG.normal(size=(4, 3)), RNG.normal(size=(3, 2)), RNG.normal(size=2)
    check(one_layer, x, w, b)
    check(two_layers, x, w, b, RNG.normal(size=(2, 5)), RNG.normal(size=5))   # two objects of one class


def test_a_dataclass_made_in_compiled_code():
    x = RNG.normal(size=(5, 3))
    check(normalize, x)
    got, expected = transpile(statistics)(x), statistics(x)
    assert type(got) is Stats
    assert_same((got.mean, got.var, got.eps, got.count), (expected.mean, expected.var, expected.eps, expected.count))


def test_returned_objects_are_made_at_each_call():
    f = transpile(counted)
    first, second = f(5), f(7)
    assert (first[0], second[0]) == (10, 12) and first[1] is not second[1]
    assert type(first[1]) is Counter and first[1].n == 10 and f.compilations == 1
    got = transpile(nested)(np.arange(3.0))
    assert type(got) is Box and type(got.a) is Box
    assert_same(got.a.a, np.arange(3.0) * 2)
    doubled, obj = transpile(frozen)(np.ones(2))
    assert type(obj) is Frozen
    assert_same((doubled, obj.a), (np.ones(2) * 2, np.ones(2)))


def test_hasattr_and_getattr_see_attributes_assigned_in_compiled_code():
    check(attribute_queries, np.ones(2))


def test_objects_made_in_a_run_time_loop_are_refused():
    def in_loop(x):
        for i in range(x.shape[0]):
            s = Stats(x[i], x[i])
        return s.mean
    with pytest.raises(CompileError, match="make the object before the loop"):
        transpile(in_loop)(np.ones((3, 2)))


class Vec:
    def __init__(self, a):
        self.a = a

    def __add__(self, other):
        if isinstance(other, Vec):
            return Vec(self.a + other.a)
        return Vec(self.a + other)

    def __radd__(self, other):
        return Vec(other + self.a)

    def __mul__(self, k):
        return Vec(self.a * k)

    def __matmul__(self, m):
        return self.a @ m

    def __neg__(self):
        return Vec(-self.a)

    def __eq__(self, other):
        return bool(np.all(self.a == other.a))

    def __lt__(self, other):
        return bool(np.sum(self.a) < np.sum(other.a))


class Scaled(Vec):
    def __radd__(self, other):         # a subclass's reflected method goes first, as in Python
        return Scaled(other.a * 10 + self.a)


def vector_ops(x, m):
    v, w = Vec(x), Vec(x * 2)
    r = (v + w) * 3
    v += w
    return r.a, (1.0 + w).a, (-w).a, w @ m, v == w, w == Vec(x * 2), w > Vec(x), v.a, v != w, w != Vec(x * 2)


def test_operators_of_the_users_classes_are_compiled():
    check(vector_ops, np.arange(3.0), np.ones((3, 2)))
    check(lambda x: (Vec(x) + Scaled(x)).a, np.arange(3.0))


def test_a_generated_operator_is_refused_by_name():
    with pytest.raises(CompileError, match="generated"):
        transpile(lambda x: Stats(x, x) == Stats(x, x))(np.ones(2))


@dataclass
class Cache:
    k: np.ndarray
    n: int


class CachingModel:
    def __init__(self, w):
        self.w = w
        self.cache = None

    def step(self, x):
        h = x @ self.w
        self.cache = Cache(h, x.shape[0])
        return h.sum()


def test_an_attribute_rebound_to_a_made_object_is_made_after_each_call():
    """`self.cache = Cache(h, n)` on an argument object: after the call the caller's object holds a new Cache with
    the kernel's values, as after NumPy's run (it was refused: 'rebinding the attribute to an object')."""
    ours, numpys = CachingModel(np.ones((3, 2))), CachingModel(np.ones((3, 2)))
    f = transpile(CachingModel.step)
    for scale in (1.0, 2.0, 3.0):
        x = np.arange(6.0).reshape(2, 3) * scale
        assert_same(f(ours, x), CachingModel.step(numpys, x))
        assert type(ours.cache) is Cache
        assert_same((ours.cache.k, ours.cache.n), (numpys.cache.k, numpys.cache.n))
    assert f.compilations == 2       # (the first call saw cache None, the later ones a Cache)


def test_none_is_not_an_object_made_in_compiled_code():
    """is_made(None) was True (a dict's .get default): every call with a None argument was inlined (np.mean's
    dtype=None: a GPT-2 block's second mean was no longer one function called twice), and `None.x = 1` would have
    been taken as an attribute of a made object."""
    from transpiler.frontend.attributes import Attributes
    assert not Attributes(None).is_made(None)

    def assign_to_none(x):
        n = None
        n.x = x
        return x
    with pytest.raises(CompileError, match="not supported"):
        transpile(assign_to_none)(np.ones(2))


@dataclass(frozen=True)
class Summary:
    x: np.ndarray
    total: np.ndarray = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "total", self.x.sum())


def test_a_frozen_dataclass_whose_post_init_sets_a_field():
    def summarize(x):
        s = Summary(x)
        return s.total, s
    total, s = transpile(summarize)(np.arange(4.0))
    assert_same(total, np.float64(6.0))
    assert type(s) is Summary and s.total == 6.0


# ---- Python's builtins on objects whose attributes compiled code holds --------------------------------------------
class Window:
    size = 0            # class attributes the instance's shadow: Python's own __len__ on the compiler's object read
    scale = 1.0         # these (len(Window(5, x)) was 0)

    def __init__(self, n, x):
        self.size = n
        self.x = x
        self.scale = 2.0

    def __len__(self):
        return self.size

    def __abs__(self):
        return self.scale

    def __float__(self):
        return self.scale * 2

    def __contains__(self, v):
        return v == self.size

    def __iter__(self):
        return iter([self.scale, self.size])


def builtins_of_made_objects(x):
    w, empty = Window(5, x), Window(0, x)
    return len(w), abs(w), float(w), 5 in w, 3 not in w, bool(w), bool(empty), (1 if empty else 2)


def builtins_of_a_rebound_argument(x, w):
    w.size = 7
    return len(w), 7 in w, bool(w)


def test_builtins_of_objects_whose_attributes_compiled_code_holds_run_their_compiled_methods():
    """len(), abs(), float(), `in` and truth of an object made in compiled code (or whose attributes it rebinds) ran
    the class's method as Python on the compiler's object: it read the class attributes (0, 1.0, False); they are
    compiled now, and the builtins that would run other special methods as Python (list(w), sorted, a for loop over
    it) are refused."""
    x = np.arange(3.0)
    check(builtins_of_made_objects, x)
    w_ours, w_numpys = Window(6, x), Window(6, x)
    assert transpile(builtins_of_a_rebound_argument)(x, w_ours) == builtins_of_a_rebound_argument(x, w_numpys)
    assert w_ours.size == w_numpys.size == 7
    for fn in (lambda x: list(Window(2, x)), lambda x: [v for v in Window(2, x)], lambda x: sorted([Window(2, x)]),
               lambda x: max(*Window(2, x))):
        with pytest.raises(CompileError, match="whose attributes compiled code sets"):
            transpile(fn)(x)


class Offset:
    data = None         # (the class's: Python's own __getitem__ on the compiler's object read it)
    k = 0

    def __init__(self, x, k):
        self.data = x
        self.k = k

    def __getitem__(self, i):
        return self.data[i] * self.k

    def __setitem__(self, i, v):
        self.data[i] = v + self.k

    def __str__(self):
        return f"Offset by {self.k}"


def items_of_made_objects(x):
    s = Offset(x, 3)
    s[0] = 10.0
    return s[1], s[0], x


def items_of_a_rebound_argument(x, s):
    s.k = 5
    return s[1]


def test_subscripts_of_the_users_objects_compile_getitem_and_setitem():
    """s[i] and s[i] = v on an object of the user's class ran its __getitem__ / __setitem__ as Python while
    compiling: on an object made in compiled code they read the class's attributes (None: a TypeError), on an
    argument object they failed on its run-time arrays; an f-string of such an object (its __str__ as Python) is
    refused."""
    x = np.arange(3.0)
    check(items_of_made_objects, x)
    assert transpile(items_of_a_rebound_argument)(x, Offset(x, 2)) == items_of_a_rebound_argument(x, Offset(x, 2))
    with pytest.raises(CompileError, match="an f-string of a Offset"):
        transpile(lambda x: f"{Offset(x, 2)}")(x)


@dataclass
class Tally:
    total: float = 0.0
    n: int = 0


def copied_tally(x):
    t = Tally(x.sum(), x.shape[0])
    return copy.copy(t).n


def test_a_library_function_run_on_a_made_object_is_refused():
    """copy.copy of a dataclass made in compiled code ran object.__reduce_ex__ as Python on the compiler's object,
    which holds no attributes: the copy had the class's defaults (n = 0 for NumPy's 4)."""
    with pytest.raises(CompileError, match="whose attributes compiled code sets"):
        transpile(copied_tally)(np.arange(4.0))
