"""Library functions written in plain NumPy. The compiler compiles them from source like user code: `np.mean`
inside a compiled function is `transpiler.stdlib.numeric.mean`, and the same functions run eagerly under plain
NumPy. Installed, this folder is transpiler/stdlib/; in a checkout transpiler/_checkout.py gives it that name."""
