"""Complex-number kernels written the usual NumPy way (the `complex` benchmark group; tests/programs_imperative.py
re-exports them for the classic-kernel tests)."""
import numpy as np


def mandelbrot(xmin, xmax, ymin, ymax, width, height, maxiter):
    """Iterations until escape, updating only the points still inside (the usual masked NumPy form)."""
    X, Y = np.meshgrid(np.linspace(xmin, xmax, width), np.linspace(ymin, ymax, height))
    c = X + 1j * Y
    z = np.zeros_like(c)
    count = np.zeros(c.shape, dtype=int)
    for n in range(maxiter):
        inside = np.abs(z) <= 2
        z[inside] = z[inside] ** 2 + c[inside]
        count[inside] += 1
    return count


def mandelbrot_escape(xmin, xmax, ymin, ymax, width, height, maxiter):
    """The whole grid every step, a broadcast grid of c, the step of escape written through a mask."""
    x = np.linspace(xmin, xmax, width)
    y = np.linspace(ymin, ymax, height)
    c = x[np.newaxis, :] + 1j * y[:, np.newaxis]
    z = np.zeros(c.shape, dtype=np.complex128)
    escape = np.full(c.shape, maxiter, dtype=np.int64)
    for n in range(maxiter):
        z = z * z + c
        escaped = np.abs(z) > 2
        escape[escaped & (escape == maxiter)] = n
        z[escaped] = 2          # escaped points stay out without overflowing
    return escape
