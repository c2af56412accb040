"""Classic numerical programs as their textbooks write them (Lloyd's k-means, a leapfrog n-body step, Black-Scholes
with the tanh approximation of the normal CDF, RK4 on the Lorenz system, logistic regression by gradient descent,
PageRank by power iteration with an early return, Conway's Life with np.roll, a direct 2-D convolution, conjugate
gradients, an Adam step, power iteration, Sinkhorn, a moving average by cumsum, histogram equalization, insertion
sort, cross-entropy, Horner's rule, Viterbi decoding with its backtracking loop, back substitution, Gauss-Seidel sweeps, Sobel's edge magnitude; and, run in the slow suite, edit distance, Householder QR, a CSR
matrix-vector product, Welford's variance, Kahan summation, Newton's square root, bisection, batch normalization,
an LSTM cell, im2col convolution, maximum drawdown, dense Dijkstra, the trapezoid rule and Jacobi's eigenvalue method). tests/test_classic_programs.py compiles each unmodified and compares with NumPy."""
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


def edit_distance(a, b):
    n, m = a.shape[0], b.shape[0]
    D = np.zeros((n + 1, m + 1), dtype=np.int64)
    D[:, 0] = np.arange(n + 1)
    D[0, :] = np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + cost)
    return D[n, m]


def householder_qr(A):
    m, n = A.shape
    R = A.copy()
    Q = np.eye(m)
    for k in range(min(m - 1, n)):
        x = R[k:, k]
        v = x.copy()
        alpha = np.linalg.norm(x)
        if x[0] > 0:
            alpha = -alpha
        v[0] -= alpha
        vnorm = np.linalg.norm(v)
        if vnorm == 0:
            continue
        v /= vnorm
        R[k:, :] -= 2.0 * np.outer(v, v @ R[k:, :])
        Q[:, k:] -= 2.0 * np.outer(Q[:, k:] @ v, v)
    return Q, R


def csr_matvec(indptr, indices, data, x):
    n = indptr.shape[0] - 1
    y = np.zeros(n, dtype=data.dtype)
    for i in range(n):
        s = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            s += data[k] * x[indices[k]]
        y[i] = s
    return y


def welford(x):
    mean = 0.0
    m2 = 0.0
    n = 0
    for v in x:
        n += 1
        d = v - mean
        mean += d / n
        m2 += d * (v - mean)
    return mean, m2 / (n - 1) if n > 1 else 0.0


def kahan_sum(x):
    s = 0.0
    c = 0.0
    for i in range(x.shape[0]):
        y = x[i] - c
        t = s + y
        c = (t - s) - y
        s = t
    return s


def newton_sqrt(a, tol):
    x = np.where(a > 1, a, 1.0)
    while np.max(np.abs(x * x - a)) > tol:
        x = 0.5 * (x + a / x)
    return x


def bisection(c, lo, hi, iters):
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        f = mid ** 3 - c
        lo = np.where(f < 0, mid, lo)
        hi = np.where(f < 0, hi, mid)
    return 0.5 * (lo + hi)


def batchnorm_train(x, gamma, beta, running_mean, running_var, momentum, eps):
    mu = x.mean(axis=0)
    var = x.var(axis=0)
    running_mean *= 1 - momentum
    running_mean += momentum * mu
    running_var *= 1 - momentum
    running_var += momentum * var
    xhat = (x - mu) / np.sqrt(var + eps)
    return gamma * xhat + beta


def lstm_cell(x, h, c, W, U, b):
    z = x @ W + h @ U + b
    H = h.shape[-1]
    i = 1 / (1 + np.exp(-z[..., :H]))
    f = 1 / (1 + np.exp(-z[..., H:2 * H]))
    o = 1 / (1 + np.exp(-z[..., 2 * H:3 * H]))
    g = np.tanh(z[..., 3 * H:])
    c_new = f * c + i * g
    h_new = o * np.tanh(c_new)
    return h_new, c_new


def im2col_conv(x, w):
    C, H, W = x.shape
    F, _, kh, kw = w.shape
    oh, ow = H - kh + 1, W - kw + 1
    cols = np.empty((C * kh * kw, oh * ow), dtype=x.dtype)
    r = 0
    for c in range(C):
        for i in range(kh):
            for j in range(kw):
                cols[r] = x[c, i:i + oh, j:j + ow].reshape(-1)
                r += 1
    return (w.reshape(F, -1) @ cols).reshape(F, oh, ow)


def max_drawdown(prices):
    peak = prices[0]
    mdd = 0.0
    for p in prices:
        if p > peak:
            peak = p
        dd = (peak - p) / peak
        if dd > mdd:
            mdd = dd
    return mdd


def dijkstra_dense(W, src):
    n = W.shape[0]
    dist = np.full(n, np.inf)
    done = np.zeros(n, dtype=np.bool_)
    dist[src] = 0.0
    for _ in range(n):
        cand = np.where(done, np.inf, dist)
        u = np.argmin(cand)
        if cand[u] == np.inf:
            break
        done[u] = True
        dist = np.minimum(dist, dist[u] + W[u])
    return dist


def trapezoid_integrate(y, dx):
    return dx * (np.sum(y) - 0.5 * (y[0] + y[-1]))


def jacobi_eigen(A, sweeps):
    A = A.copy()
    n = A.shape[0]
    V = np.eye(n)
    for _ in range(sweeps):
        for p in range(n - 1):
            for q in range(p + 1, n):
                if abs(A[p, q]) < 1e-15:
                    continue
                theta = (A[q, q] - A[p, p]) / (2 * A[p, q])
                t = np.sign(theta) / (abs(theta) + np.sqrt(theta * theta + 1))
                if theta == 0:
                    t = 1.0
                c = 1 / np.sqrt(t * t + 1)
                s = t * c
                Ap = A[:, p].copy()
                Aq = A[:, q].copy()
                A[:, p] = c * Ap - s * Aq
                A[:, q] = s * Ap + c * Aq
                Ap = A[p, :].copy()
                Aq = A[q, :].copy()
                A[p, :] = c * Ap - s * Aq
                A[q, :] = s * Ap + c * Aq
                Vp = V[:, p].copy()
                Vq = V[:, q].copy()
                V[:, p] = c * Vp - s * Vq
                V[:, q] = s * Vp + c * Vq
    return np.diag(A), V
