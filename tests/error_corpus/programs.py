"""A corpus of programs the compiler must refuse: each is its own function, and the line to blame carries a marker
comment `# error: KIND`, where KIND is the exception type the CompileError must also be an instance of (NumPy's or
Python's type for the same mistake), or `CompileError` where NumPy itself would run the program (an unsupported
feature). A trailing `numpy` says the program, run by NumPy, raises that same exception type (the test checks it, so
the expected types are NumPy's, not guesses). `CASES` gives the arguments of each and the options to compile it with.

This file is data for tests/test_error_corpus.py: the functions are never called by NumPy there, only compiled.
"""
import numpy as np

GLOBAL_LIST = [1, 2, 3]
GLOBAL_DICT = {"a": 1}
SCALE = 2.0


def helper_two_args(a, b):
    return a + b


def try_except(x):
    y = x + 1
    try:  # error: SyntaxError
        y = y * 2
    except ValueError:
        pass
    return y


def with_statement(x):
    with open("/dev/null") as fh:  # error: SyntaxError
        fh.read()
    return x


def class_definition(x):
    class Local:  # error: SyntaxError
        pass
    return x


def global_statement(x):
    global SCALE  # error: SyntaxError
    return x * SCALE


def nonlocal_statement(x):
    total = 0

    def bump():
        nonlocal total  # error: SyntaxError
        total += 1
    bump()
    return x + total


def yield_statement(x):
    yield x  # error: SyntaxError


def lambda_with_yield(x):
    gen = lambda: (yield x)  # noqa: E731  # error: SyntaxError
    return next(gen())


def nested_async_def(x):
    async def inner():  # error: SyntaxError
        return x
    return x


def match_statement(x):
    match x.ndim:  # error: SyntaxError
        case 1:
            return x
    return -x


def eval_call(x):
    return eval("x + 1")  # error: TypeError


def exec_call(x):
    exec("y = 1")  # error: TypeError
    return x


def print_call(x):
    print(x)  # error: TypeError
    return x


def open_call(x):
    fh = open("/dev/null")  # noqa: F841  # error: TypeError
    return x


def mutate_global_list(x):
    GLOBAL_LIST.append(4)  # error: CompileError
    return x


def mutate_global_dict(x):
    GLOBAL_DICT["b"] = 2  # error: CompileError
    return x


def recursion(x, n):
    if n == 0:
        return x
    return recursion(x, n - 1) * 2  # error: RecursionError


def bool_subtraction(a, b):
    return a - b  # error: TypeError numpy


def static_shape_mismatch(a, b):
    c = a * 2
    return c + b  # error: ValueError numpy


def unknown_numpy_function(x):
    return np.fft.fft(x)  # error: TypeError


def bad_axis(x):
    return x.sum(axis=3)  # error: AxisError numpy


def bad_axis_negative(x):
    return np.max(x, axis=-4)  # error: AxisError numpy


def truth_in_if(x):
    if x > 0:  # error: ValueError numpy
        return x
    return -x


def truth_in_while(x):
    while x > 0:  # error: ValueError numpy
        x = x - 1
    return x


def truth_in_and(x, y):
    return (x > 0) and (y > 0)  # error: ValueError numpy


def truth_in_or(x, y):
    return (x > 0) or (y > 0)  # error: ValueError numpy


def truth_in_not(x):
    return not x  # error: ValueError numpy


def chained_comparison(x):
    return 0 < x < 1  # error: ValueError numpy


def complex_dtype(x):
    return x.astype(np.clongdouble)  # error: TypeError


def complex_constant(x):
    return np.sign(x * 1j)  # error: TypeError


def string_operand(x):
    return x + "a"  # error: TypeError numpy


def matmul_mismatch(a, b):
    return a @ b  # error: ValueError numpy


def reshape_mismatch(x):
    return x.reshape(5, -1)  # error: ValueError numpy


def static_index_out_of_range(x):
    return x[10]  # error: IndexError numpy


def too_many_indices(x):
    return x[0, 0]  # error: IndexError numpy


def boolean_mask_of_wrong_shape(x):
    return x[np.ones(3, bool)]  # error: IndexError numpy


def assignment_that_does_not_broadcast(x):
    y = np.zeros(4)
    y[:2] = np.arange(3.0) * x[0]  # error: ValueError numpy
    return y


def assignment_into_a_numpy_scalar(x):
    s = x.sum()
    s[0] = 1  # error: TypeError numpy
    return s


def starred_unpacking_too_short(x):
    a, b, *rest = x.shape  # error: ValueError numpy
    return x


def unpacking_non_iterable(x):
    a, *b = 5  # error: TypeError numpy
    return x


def undefined_name(x):
    return x + not_defined_anywhere  # noqa: F821  # error: NameError numpy


def call_undefined_function(x):
    return undefined_function(x)  # noqa: F821  # error: NameError numpy


def starred_call_of_runtime_rows(x):
    return np.add(*x)  # error: TypeError


def unpack_runtime_rows(x):
    a, b = x  # error: TypeError
    return a + b


def helper_wrong_arg_count(x):
    return helper_two_args(x)  # error: TypeError numpy


def helper_unknown_keyword(x):
    return helper_two_args(x, 1, c=2)  # error: TypeError numpy


def raise_at_compile_time(x):
    if x.ndim != 2:
        raise ValueError("expected a matrix")  # error: ValueError numpy
    return x


def assert_false(x):
    assert False, "never"  # error: AssertionError numpy
    return x


def assert_on_shape(x):
    assert x.shape[0] == 99, "wrong size"  # error: AssertionError numpy
    return x


def python_int_overflow(x):
    return x + 300  # error: OverflowError numpy


def max_of_empty_axis(x):
    return x.max(axis=1)  # error: ValueError numpy


def float_of_vector(x):
    return float(x)  # error: TypeError numpy


def len_of_scalar(x):
    return len(x.sum())  # error: TypeError numpy


def call_an_int(x):
    n = 3
    return n(x)  # error: TypeError numpy


def unknown_attribute(x):
    return x.no_such_attribute  # error: AttributeError numpy


def concatenate_rank_mismatch(a, b):
    return np.concatenate([a, b])  # error: ValueError numpy


def compile_time_zero_division(x):
    return x * (1 // 0)  # error: ZeroDivisionError numpy


def import_missing_module(x):
    import no_such_module_anywhere  # noqa: F401  # error: ImportError numpy
    return x


def unsupported_linalg(x):
    return np.linalg.eig(x)  # error: TypeError


def reduction_with_where(x):
    return x.sum(where=x > 0)  # error: CompileError


def index_with_float(x):
    return x[1.5]  # error: IndexError numpy


def bitwise_on_float(x):
    return x & 1  # error: TypeError numpy


def int_to_negative_power(x):
    return x ** -1  # error: ValueError numpy


def return_a_generator(x):
    return (v for v in range(3))  # error: TypeError


CASES = {
    # name: (args, options)
    "try_except": ((np.ones(3),), {}),
    "with_statement": ((np.ones(3),), {}),
    "class_definition": ((np.ones(3),), {}),
    "global_statement": ((np.ones(3),), {}),
    "nonlocal_statement": ((np.ones(3),), {}),
    "yield_statement": ((np.ones(3),), {}),
    "lambda_with_yield": ((np.ones(3),), {}),
    "nested_async_def": ((np.ones(3),), {}),
    "match_statement": ((np.ones(3),), {}),
    "eval_call": ((np.ones(3),), {}),
    "exec_call": ((np.ones(3),), {}),
    "print_call": ((np.ones(3),), {}),
    "open_call": ((np.ones(3),), {}),
    "mutate_global_list": ((np.ones(3),), {}),
    "mutate_global_dict": ((np.ones(3),), {}),
    "recursion": ((np.ones(3), 3), {}),
    "bool_subtraction": ((np.ones(3, bool), np.ones(3, bool)), {}),
    "static_shape_mismatch": ((np.ones((2, 3)), np.ones(4)), {"static_shapes": True}),
    "unknown_numpy_function": ((np.ones(4),), {}),
    "bad_axis": ((np.ones((2, 3)),), {}),
    "bad_axis_negative": ((np.ones((2, 3, 4)),), {}),
    "truth_in_if": ((np.ones(3),), {}),
    "truth_in_while": ((np.ones(3),), {}),
    "truth_in_and": ((np.ones(3), np.ones(3)), {}),
    "truth_in_or": ((np.ones(3), np.ones(3)), {}),
    "truth_in_not": ((np.ones(3),), {}),
    "chained_comparison": ((np.ones(3),), {}),
    "complex_dtype": ((np.ones(3),), {}),
    "complex_constant": ((np.ones(3),), {}),
    "string_operand": ((np.ones(3),), {}),
    "matmul_mismatch": ((np.ones((2, 3)), np.ones((4, 5))), {"static_shapes": True}),
    "reshape_mismatch": ((np.ones((2, 3)),), {"static_shapes": True}),
    "static_index_out_of_range": ((np.ones(4),), {"static_shapes": True}),
    "too_many_indices": ((np.ones(4),), {}),
    "boolean_mask_of_wrong_shape": ((np.ones(4),), {"static_shapes": True}),
    "assignment_that_does_not_broadcast": ((np.ones(4),), {}),
    "assignment_into_a_numpy_scalar": ((np.ones(4),), {}),
    "starred_unpacking_too_short": ((np.ones(4),), {}),
    "unpacking_non_iterable": ((np.ones(4),), {}),
    "undefined_name": ((np.ones(4),), {}),
    "call_undefined_function": ((np.ones(4),), {}),
    "starred_call_of_runtime_rows": ((np.ones((2, 3)),), {}),
    "unpack_runtime_rows": ((np.ones((2, 3)),), {}),
    "helper_wrong_arg_count": ((np.ones(4),), {}),
    "helper_unknown_keyword": ((np.ones(4),), {}),
    "raise_at_compile_time": ((np.ones(4),), {}),
    "assert_false": ((np.ones(4),), {}),
    "assert_on_shape": ((np.ones(4),), {"static_shapes": True}),
    "python_int_overflow": ((np.ones(4, np.uint8),), {}),
    "max_of_empty_axis": ((np.ones((3, 0)),), {"static_shapes": True}),
    "float_of_vector": ((np.ones(4),), {}),
    "len_of_scalar": ((np.ones(4),), {}),
    "call_an_int": ((np.ones(4),), {}),
    "unknown_attribute": ((np.ones(4),), {}),
    "concatenate_rank_mismatch": ((np.ones((2, 2)), np.ones(2)), {}),
    "compile_time_zero_division": ((np.ones(4),), {}),
    "import_missing_module": ((np.ones(4),), {}),
    "unsupported_linalg": ((np.ones((3, 3)),), {}),
    "reduction_with_where": ((np.ones(3),), {}),
    "index_with_float": ((np.ones(4),), {}),
    "bitwise_on_float": ((np.ones(4),), {}),
    "int_to_negative_power": ((np.arange(1, 4),), {}),
    "return_a_generator": ((np.ones(4),), {}),
}
