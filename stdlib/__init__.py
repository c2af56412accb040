"""Library functions written in plain NumPy. The compiler compiles them from source like user code: `np.mean`
inside a compiled function is `stdlib.numeric.mean`, and the same functions run eagerly under plain NumPy."""
