"""The project's one logistic-regression solver (numpy): L2-regularised, optional sample weights, an
intercept penalised separately (by default not at all), by Newton's method (IRLS).

It minimises, over coefficients w and intercept b (z = X w + b),

    sum_i s_i [log(1 + e^z_i) - y_i z_i] + 1/2 sum_j l2_j w_j^2 + 1/2 intercept_l2 b^2

- each Newton step is damped by a backtracking line search on that objective, so it never increases:
  with ``l2 > 0`` separable data still reach a finite optimum (the coefficients stay bounded);
- a design with few columns solves the Newton system exactly (Cholesky); a wide or sparse one
  (``Sparse``, numpy compressed rows) solves it by preconditioned conjugate gradients on
  Hessian-vector products (truncated Newton), so a text vocabulary of 50,000 columns costs a few
  passes over the non-zeros per step;
- a training set whose weight lies on one class has no finite unpenalised intercept: the fit returns
  zero coefficients and the smoothed base rate ((positives + 1/2) / (n + 1)) as its probability,
  and says so (``one_class``).

    fit = fit_logistic(x, y, l2=1.0, sample_weight=w)
    p = fit.probability(x_new)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

EXACT_MAX_COLUMNS = 1000  # wider designs (or any Sparse) use conjugate gradients for the Newton system


@dataclass
class Sparse:
    """Compressed sparse rows in plain numpy (no scipy): products by ``np.bincount``."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    shape: tuple[int, int]
    rows: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.data = np.asarray(self.data, dtype=np.float64)
        self.indices = np.asarray(self.indices, dtype=np.int64)
        self.indptr = np.asarray(self.indptr, dtype=np.int64)
        self.rows = np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))

    @classmethod
    def from_rows(cls, rows: list[dict[int, float]], columns: int) -> Sparse:
        indptr = np.cumsum([0] + [len(r) for r in rows])
        indices = np.fromiter((j for r in rows for j in r), dtype=np.int64, count=int(indptr[-1]))
        data = np.fromiter((v for r in rows for v in r.values()), dtype=np.float64, count=int(indptr[-1]))
        return cls(data, indices, indptr, (len(rows), columns))

    @classmethod
    def from_dense(cls, x: np.ndarray) -> Sparse:
        x = np.asarray(x, dtype=np.float64)
        r, c = np.nonzero(x)
        indptr = np.concatenate([[0], np.cumsum(np.bincount(r, minlength=x.shape[0]))])
        return cls(x[r, c], c, indptr, (x.shape[0], x.shape[1]))

    def hstack(self, other: Sparse) -> Sparse:
        """These columns, then ``other``'s (same rows)."""
        if other.shape[0] != self.shape[0]:
            raise ValueError("hstack needs the same number of rows")
        rows = np.concatenate([self.rows, other.rows])
        cols = np.concatenate([self.indices, other.indices + self.shape[1]])
        data = np.concatenate([self.data, other.data])
        order = np.lexsort((cols, rows))
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=self.shape[0]))])
        return Sparse(data[order], cols[order], indptr, (self.shape[0], self.shape[1] + other.shape[1]))

    def take(self, index: np.ndarray) -> Sparse:
        """The rows ``index`` (in that order)."""
        index = np.asarray(index, dtype=np.int64)
        start, stop = self.indptr[index], self.indptr[index + 1]
        pieces = [np.arange(a, b) for a, b in zip(start, stop, strict=True)]
        pick = np.concatenate(pieces).astype(np.int64) if pieces else np.zeros(0, dtype=np.int64)
        indptr = np.concatenate([[0], np.cumsum(stop - start)])
        return Sparse(self.data[pick], self.indices[pick], indptr, (index.size, self.shape[1]))

    def dot(self, v: np.ndarray) -> np.ndarray:
        return np.bincount(self.rows, self.data * v[self.indices], minlength=self.shape[0])

    def tdot(self, u: np.ndarray) -> np.ndarray:
        return np.bincount(self.indices, self.data * u[self.rows], minlength=self.shape[1])

    def weighted_square_columns(self, d: np.ndarray) -> np.ndarray:
        """diag(X^T diag(d) X)."""
        return np.bincount(self.indices, self.data**2 * d[self.rows], minlength=self.shape[1])


def _mv(x: np.ndarray, v: np.ndarray) -> np.ndarray:
    # einsum, not BLAS: on a busy machine a threaded gemv waits for cores others hold (30x slower here).
    return np.einsum("ij,j->i", x, v)


def _tmv(x: np.ndarray, u: np.ndarray) -> np.ndarray:
    return np.einsum("ij,i->j", x, u)


def _vdot(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.einsum("i,i->", a, b))


@dataclass
class Columns:
    """Blocks of columns side by side (a sparse vocabulary, then dense features), never copied into one."""

    parts: list[Sparse | np.ndarray]

    @property
    def shape(self) -> tuple[int, int]:
        rows = self.parts[0].shape[0] if self.parts else 0
        return rows, sum(part.shape[1] for part in self.parts)

    def _split(self, v: np.ndarray) -> list[np.ndarray]:
        edges = np.cumsum([part.shape[1] for part in self.parts])[:-1]
        return np.split(v, edges)

    def dot(self, v: np.ndarray) -> np.ndarray:
        out = np.zeros(self.shape[0])
        for part, piece in zip(self.parts, self._split(v), strict=True):
            out += part.dot(piece) if isinstance(part, Sparse) else _mv(part, piece)
        return out

    def tdot(self, u: np.ndarray) -> np.ndarray:
        return np.concatenate([part.tdot(u) if isinstance(part, Sparse) else _tmv(part, u) for part in self.parts])

    def weighted_square_columns(self, d: np.ndarray) -> np.ndarray:
        return np.concatenate(
            [part.weighted_square_columns(d) if isinstance(part, Sparse) else _tmv(part**2, d) for part in self.parts]
        )

    def take(self, index: np.ndarray) -> Columns:
        return Columns([part.take(index) if isinstance(part, Sparse) else part[index] for part in self.parts])


Design = np.ndarray | Sparse | Columns


@dataclass
class LogisticFit:
    coef: np.ndarray
    intercept: float
    one_class: bool = False
    iterations: int = 0
    converged: bool = True

    def decision(self, x: Design) -> np.ndarray:
        z = _mv(np.asarray(x, dtype=np.float64), self.coef) if isinstance(x, np.ndarray) else x.dot(self.coef)
        return z + self.intercept

    def probability(self, x: Design) -> np.ndarray:
        return sigmoid(self.decision(x))

    def to_json(self) -> dict[str, Any]:
        return {"coef": self.coef.tolist(), "intercept": self.intercept, "one_class": self.one_class}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LogisticFit:
        return cls(np.array(data["coef"], dtype=np.float64), float(data["intercept"]), bool(data.get("one_class")))


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(z, -30, 30)))


def _loss(z: np.ndarray, y: np.ndarray, s: np.ndarray) -> float:
    return _vdot(s, np.logaddexp(0.0, z) - y * z)


def fit_logistic(
    x: Design,
    y: np.ndarray,
    l2: float | np.ndarray = 1.0,
    sample_weight: np.ndarray | None = None,
    intercept_l2: float = 0.0,
    max_iter: int = 100,
    tol: float = 1e-8,
    init: LogisticFit | None = None,
) -> LogisticFit:
    """Minimise the penalised weighted log loss (module docstring); ``init`` warm-starts the search."""
    n = x.shape[0]
    p = x.shape[1]
    y = np.asarray(y, dtype=np.float64)
    s = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if y.shape != (n,) or s.shape != (n,):
        raise ValueError("x, y and sample_weight need the same number of rows")
    penalty = np.broadcast_to(np.asarray(l2, dtype=np.float64), (p,)).copy()
    positive, total = _vdot(s, y), float(s.sum())
    if total <= 0 or positive <= 0 or positive >= total:
        rate = (max(positive, 0.0) + 0.5) / (max(total, 0.0) + 1.0)
        return LogisticFit(np.zeros(p), float(np.log(rate / (1 - rate))), one_class=True)
    ops: Sparse | Columns
    if isinstance(x, np.ndarray):
        dense = np.asarray(x, dtype=np.float64)
        ops = Columns([dense])
    else:
        dense, ops = None, x
    exact = dense is not None and p + 1 <= EXACT_MAX_COLUMNS

    def objective(w: np.ndarray, b: float, z: np.ndarray) -> float:
        return _loss(z, y, s) + 0.5 * _vdot(penalty, w * w) + 0.5 * intercept_l2 * b * b

    if init is not None and not init.one_class and init.coef.shape == (p,):
        w, b = init.coef.copy(), float(init.intercept)
    else:
        rate = positive / total
        w, b = np.zeros(p), float(np.log(rate / (1 - rate)))
    z = ops.dot(w) + b
    f = objective(w, b, z)
    first: float | None = None  # the first gradient's size: conjugate gradients solve relative to it
    block: tuple[np.ndarray, np.ndarray] | None = None  # the dense block's preconditioner, from the first step
    scale = max(total, 1.0)
    for iteration in range(1, max_iter + 1):
        mu = sigmoid(z)
        r = s * (mu - y)
        grad_w, grad_b = ops.tdot(r) + penalty * w, float(r.sum()) + intercept_l2 * b
        if max(np.abs(grad_w).max(initial=0.0), abs(grad_b)) <= tol * scale:
            return LogisticFit(w, b, iterations=iteration - 1)
        d = s * mu * (1 - mu)
        if exact and dense is not None:
            step_w, step_b = _exact_step(dense, d, penalty, intercept_l2, grad_w, grad_b)
        else:
            first = first if first is not None else max(np.abs(grad_w).max(initial=0.0), abs(grad_b))
            block = block or _dense_block(ops, d, penalty, intercept_l2)
            step_w, step_b = _cg_step(ops, d, penalty, intercept_l2, grad_w, grad_b, first, block)
        slope = _vdot(grad_w, step_w) + grad_b * step_b  # negative for a descent direction
        t = 1.0
        for _ in range(40):
            w_new, b_new = w - t * step_w, b - t * step_b
            z_new = ops.dot(w_new) + b_new
            f_new = objective(w_new, b_new, z_new)
            if f_new <= f - 1e-4 * t * slope:
                break
            t /= 2
        else:
            return LogisticFit(w, b, iterations=iteration, converged=False)
        moved = t * max(np.abs(step_w).max(initial=0.0), abs(step_b))
        w, b, z, f = w_new, b_new, z_new, f_new
        if moved < tol:
            return LogisticFit(w, b, iterations=iteration)
    return LogisticFit(w, b, iterations=max_iter, converged=False)


def _exact_step(
    x: np.ndarray, d: np.ndarray, penalty: np.ndarray, intercept_l2: float, grad_w: np.ndarray, grad_b: float
) -> tuple[np.ndarray, float]:
    design = np.hstack([np.ones((x.shape[0], 1)), x])
    hess = (design * d[:, None]).T @ design
    hess[np.diag_indices_from(hess)] += np.concatenate([[intercept_l2], penalty]) + 1e-10
    step = np.linalg.solve(hess, np.concatenate([[grad_b], grad_w]))
    return step[1:], float(step[0])


def _cg_step(
    x: Sparse | Columns,
    d: np.ndarray,
    penalty: np.ndarray,
    intercept_l2: float,
    grad_w: np.ndarray,
    grad_b: float,
    first: float,
    dense: tuple[np.ndarray, np.ndarray],
    max_iter: int = 200,
) -> tuple[np.ndarray, float]:
    """Solve the Newton system by conjugate gradients to a residual that shrinks with the gradient
    (relative to the first one): superlinear convergence. Preconditioner: the Hessian's diagonal, and
    the inverse of its block on the intercept and the dense columns of a ``Columns`` design (few,
    correlated columns that would otherwise slow conjugate gradients most), computed at the first
    Newton step and kept (a preconditioner need not be exact; a new one costs a product of the block)."""
    diag = np.concatenate([[d.sum() + intercept_l2], x.weighted_square_columns(d) + penalty]) + 1e-10
    block, inverse = dense

    def precondition(r: np.ndarray) -> np.ndarray:
        z = r / diag
        z[block] = inverse @ r[block]
        return z

    def hess(v: np.ndarray) -> np.ndarray:
        u = d * (x.dot(v[1:]) + v[0])
        return np.concatenate([[u.sum() + intercept_l2 * v[0]], x.tdot(u) + penalty * v[1:]])

    g = np.concatenate([[grad_b], grad_w])
    norm = float(np.sqrt(_vdot(g, g)))
    target = min(0.5, float(np.sqrt(np.abs(g).max() / max(first, 1e-300)))) * norm
    v = np.zeros_like(g)
    res = g.copy()
    pre = precondition(res)
    direction = pre.copy()
    rho = _vdot(res, pre)
    for _ in range(max_iter):
        if np.sqrt(_vdot(res, res)) <= target:
            break
        hd = hess(direction)
        alpha = rho / _vdot(direction, hd)
        v += alpha * direction
        res -= alpha * hd
        pre = precondition(res)
        rho_new = _vdot(res, pre)
        direction = pre + (rho_new / rho) * direction
        rho = rho_new
    return v[1:], float(v[0])


def _dense_block(
    x: Sparse | Columns, d: np.ndarray, penalty: np.ndarray, intercept_l2: float
) -> tuple[np.ndarray, np.ndarray]:
    """Positions (in [intercept, coefficients]) of the intercept and dense columns, and the inverse of
    the Hessian's block on them."""
    dense: list[np.ndarray] = [np.ones((x.shape[0], 1))]
    where = [np.array([0])]
    offset = 1
    for part in x.parts if isinstance(x, Columns) else [x]:
        if isinstance(part, np.ndarray) and part.shape[1]:
            dense.append(part)
            where.append(np.arange(offset, offset + part.shape[1]))
        offset += part.shape[1]
    block = np.concatenate(where)
    design = np.hstack(dense)
    hess = (design * d[:, None]).T @ design
    hess[np.diag_indices_from(hess)] += np.concatenate([[intercept_l2], penalty[block[1:] - 1]]) + 1e-10
    return block, np.linalg.inv(hess)


def best_threshold(scores: np.ndarray, y: np.ndarray) -> float:
    """The score threshold (predict positive at or above it) with the best F1 of the positive class; of
    equal F1s the lowest threshold. 0.5 when nothing is positive."""
    scores = np.asarray(scores, dtype=np.float64)
    y = np.asarray(y, dtype=bool)
    if scores.size == 0 or not y.any():
        return 0.5
    order = np.argsort(-scores, kind="stable")
    s, hits = scores[order], np.cumsum(y[order])
    last = np.flatnonzero(np.r_[s[1:] != s[:-1], True])  # the last row of each distinct score, descending
    f1 = 2 * hits[last] / (last + 1 + y.sum())
    best = np.flatnonzero(f1 == f1.max())[-1]  # the lowest of the best thresholds
    return float(s[last[best]])
