"""The compiler's elementwise primitives under short names. They *are* NumPy's ufuncs, so they run eagerly on
arrays with NumPy's exact semantics and the compiler recognizes them exactly like `np.tanh`."""
import numpy as np

tanh, exp, exp2, log, log2, log10, log1p, expm1 = np.tanh, np.exp, np.exp2, np.log, np.log2, np.log10, np.log1p, np.expm1
sqrt, cbrt, square, reciprocal, power = np.sqrt, np.cbrt, np.square, np.reciprocal, np.power
sin, cos, tan, sinh, cosh = np.sin, np.cos, np.tan, np.sinh, np.cosh
arcsin, arccos, arctan, arctan2, arcsinh, arccosh, arctanh = (np.arcsin, np.arccos, np.arctan, np.arctan2, np.arcsinh,
                                                              np.arccosh, np.arctanh)
absolute, negative, sign, floor, ceil, trunc, rint = np.absolute, np.negative, np.sign, np.floor, np.ceil, np.trunc, np.rint
maximum, minimum, where, clip = np.maximum, np.minimum, np.where, np.clip
isnan, isinf, isfinite = np.isnan, np.isinf, np.isfinite

__all__ = ["tanh", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt", "cbrt", "square", "reciprocal",
           "power", "sin", "cos", "tan", "sinh", "cosh", "arcsin", "arccos", "arctan", "arctan2", "arcsinh",
           "arccosh", "arctanh", "absolute", "negative", "sign", "floor", "ceil", "trunc", "rint", "maximum",
           "minimum", "where", "clip", "isnan", "isinf", "isfinite"]
