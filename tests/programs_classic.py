"""Classic numerical programs as their textbooks write them (Lloyd's k-means, a leapfrog n-body step, Black-Scholes
with the tanh approximation of the normal CDF, RK4 on the Lorenz system, logistic regression by gradient descent,
PageRank by power iteration with an early return, Conway's Life with np.roll, a direct 2-D convolution, conjugate
gradients, an Adam step, power iteration, Sinkhorn, a moving average by cumsum, histogram equalization, insertion
sort, cross-entropy, Horner's rule, Viterbi decoding with its backtracking loop, back substitution, Gauss-Seidel sweeps, Sobel's edge magnitude). tests/test_classic_programs.py compiles each unmodified and compares with NumPy."""
import numpy as np


def kmeans(X, centers, iters):
    k = centers.shape[0]
    for _ in range(iters):
        d = np.sum((X[:, None, :] - centers[None, :, :]) ** 2, axis=-1)
        labels = np.argmin(d, axis=1)
        for j in range(k):
            members = X[labels == j]
            if members.shape[0] > 0:
                centers[j] = members.mean(axis=0)
    return centers, labels


def nbody(pos, vel, mass, dt, steps):
    for _ in range(steps):
        diff = pos[None, :, :] - pos[:, None, :]
        dist2 = np.sum(diff * diff, axis=-1) + 0.01
        inv = dist2 ** -1.5
        acc = np.sum(diff * (inv * mass[None, :])[:, :, None], axis=1)
        vel += acc * dt
        pos += vel * dt
    return pos


def black_scholes(S, K, T, r, sigma):
    d1 = (np.log(S / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    cdf1 = 0.5 * (1.0 + np.tanh(0.7978845608 * (d1 + 0.044715 * d1 ** 3)))
    cdf2 = 0.5 * (1.0 + np.tanh(0.7978845608 * (d2 + 0.044715 * d2 ** 3)))
    call = S * cdf1 - K * np.exp(-r * T) * cdf2
    put = call - S + K * np.exp(-r * T)
    return call, put


def lorenz_rk4(state, dt, steps):
    sigma, rho, beta = 10.0, 28.0, 8.0 / 3.0
    out = np.empty((steps, 3))
    s = state.copy()
    for i in range(steps):
        def f(u):
            return np.array([sigma * (u[1] - u[0]), u[0] * (rho - u[2]) - u[1], u[0] * u[1] - beta * u[2]])
        k1 = f(s)
        k2 = f(s + dt / 2 * k1)
        k3 = f(s + dt / 2 * k2)
        k4 = f(s + dt * k3)
        s = s + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        out[i] = s
    return out


def logistic_regression(X, y, lr, epochs):
    w = np.zeros(X.shape[1])
    b = 0.0
    for _ in range(epochs):
        z = X @ w + b
        p = 1.0 / (1.0 + np.exp(-z))
        g = p - y
        w -= lr * (X.T @ g) / X.shape[0]
        b -= lr * np.mean(g)
    return w, b


def pagerank(A, d, tol, max_iter):
    n = A.shape[0]
    out_deg = A.sum(axis=1)
    out_deg[out_deg == 0] = 1
    M = (A / out_deg[:, None]).T
    r = np.full(n, 1.0 / n)
    for it in range(max_iter):
        r_new = (1 - d) / n + d * (M @ r)
        if np.abs(r_new - r).sum() < tol:
            return r_new, it
        r = r_new
    return r, max_iter


def life(board, steps):
    for _ in range(steps):
        n = sum(np.roll(np.roll(board, i, 0), j, 1) for i in (-1, 0, 1) for j in (-1, 0, 1) if (i != 0 or j != 0))
        board = ((n == 3) | (board & (n == 2))).astype(board.dtype)
    return board


def conv2d_loops(img, kern):
    H, W = img.shape
    kh, kw = kern.shape
    out = np.zeros((H - kh + 1, W - kw + 1), dtype=img.dtype)
    for i in range(H - kh + 1):
        for j in range(W - kw + 1):
            acc = 0.0
            for a in range(kh):
                for b in range(kw):
                    acc += img[i + a, j + b] * kern[a, b]
            out[i, j] = acc
    return out


def conjugate_gradient(A, b, tol, max_iter):
    x = np.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs = r @ r
    for i in range(max_iter):
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rs_new = r @ r
        if np.sqrt(rs_new) < tol:
            break
        p = r + (rs_new / rs) * p
        rs = rs_new
    return x


def adam_step(params, grads, m, v, t, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    m *= b1
    m += (1 - b1) * grads
    v *= b2
    v += (1 - b2) * grads * grads
    mhat = m / (1 - b1 ** t)
    vhat = v / (1 - b2 ** t)
    params -= lr * mhat / (np.sqrt(vhat) + eps)
    return params


def power_iteration(A, iters):
    v = np.ones(A.shape[0]) / np.sqrt(A.shape[0])
    lam = 0.0
    for _ in range(iters):
        w = A @ v
        lam = v @ w
        v = w / np.linalg.norm(w)
    return lam, v


def sinkhorn(C, a, b, reg, iters):
    K = np.exp(-C / reg)
    u = np.ones_like(a)
    v = np.ones_like(b)
    for _ in range(iters):
        u = a / (K @ v)
        v = b / (K.T @ u)
    return u[:, None] * K * v[None, :]


def moving_average(x, w):
    c = np.cumsum(np.concatenate(([0.0], x)))
    return (c[w:] - c[:-w]) / w


def hist_equalize(img):
    hist = np.bincount(img.ravel(), minlength=256)
    cdf = np.cumsum(hist)
    cdf_min = cdf[cdf > 0][0]
    lut = np.round((cdf - cdf_min) / (img.size - cdf_min) * 255).astype(np.uint8)
    return lut[img]


def insertion_sort(a):
    for i in range(1, a.shape[0]):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


def cross_entropy(logits, labels):
    m = logits.max(axis=1, keepdims=True)
    z = logits - m
    lse = np.log(np.exp(z).sum(axis=1))
    return np.mean(lse - z[np.arange(logits.shape[0]), labels])


def horner(coeffs, x):
    result = np.zeros_like(x)
    for c in coeffs:
        result = result * x + c
    return result


def viterbi(log_pi, log_A, log_B, obs):
    T = obs.shape[0]
    S = log_pi.shape[0]
    delta = np.empty((T, S))
    psi = np.zeros((T, S), dtype=np.int64)
    delta[0] = log_pi + log_B[:, obs[0]]
    for t in range(1, T):
        scores = delta[t - 1][:, None] + log_A
        psi[t] = np.argmax(scores, axis=0)
        delta[t] = np.max(scores, axis=0) + log_B[:, obs[t]]
    path = np.empty(T, dtype=np.int64)
    path[T - 1] = np.argmax(delta[T - 1])
    for t in range(T - 2, -1, -1):
        path[t] = psi[t + 1, path[t + 1]]
    return path


def back_substitution(U, b):
    n = b.shape[0]
    x = np.zeros_like(b)
    for i in range(n - 1, -1, -1):
        x[i] = (b[i] - U[i, i + 1:] @ x[i + 1:]) / U[i, i]
    return x


def gauss_seidel(A, b, iters):
    n = b.shape[0]
    x = np.zeros_like(b)
    for _ in range(iters):
        for i in range(n):
            s = A[i, :i] @ x[:i] + A[i, i + 1:] @ x[i + 1:]
            x[i] = (b[i] - s) / A[i, i]
    return x


def sobel(img):
    gx = (img[:-2, 2:] + 2 * img[1:-1, 2:] + img[2:, 2:]) - (img[:-2, :-2] + 2 * img[1:-1, :-2] + img[2:, :-2])
    gy = (img[2:, :-2] + 2 * img[2:, 1:-1] + img[2:, 2:]) - (img[:-2, :-2] + 2 * img[:-2, 1:-1] + img[:-2, 2:])
    return np.hypot(gx, gy)
