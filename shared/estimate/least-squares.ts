// The small linear algebra the calibration needs: a ridge-regularised, non-negative, relative least-squares fit of
// a handful of coefficients (one per extrusion or motion term), solved by Gaussian elimination. Relative, so a
// 2 g part weighs as much in the fit as a 200 g one; ridge toward the physical model's own coefficients, so few
// samples move it little; non-negative, so no term ever subtracts material or time.

/** Solves A·x = b in place (A: k×k row-major); null when singular. */
function solve(a: Float64Array, b: Float64Array, k: number): Float64Array | null {
  for (let col = 0; col < k; col++) {
    let pivot = col;
    for (let r = col + 1; r < k; r++) if (Math.abs(a[r * k + col]!) > Math.abs(a[pivot * k + col]!)) pivot = r;
    if (Math.abs(a[pivot * k + col]!) < 1e-300) return null;
    if (pivot !== col) {
      for (let c = 0; c < k; c++) [a[col * k + c], a[pivot * k + c]] = [a[pivot * k + c]!, a[col * k + c]!];
      [b[col], b[pivot]] = [b[pivot]!, b[col]!];
    }
    for (let r = col + 1; r < k; r++) {
      const f = a[r * k + col]! / a[col * k + col]!;
      if (f === 0) continue;
      for (let c = col; c < k; c++) a[r * k + c]! -= f * a[col * k + c]!;
      b[r]! -= f * b[col]!;
    }
  }
  const x = new Float64Array(k);
  for (let r = k - 1; r >= 0; r--) {
    let sum = b[r]!;
    for (let c = r + 1; c < k; c++) sum -= a[r * k + c]! * x[c]!;
    x[r] = sum / a[r * k + r]!;
  }
  return x;
}

/**
 * Coefficients c ≥ 0 minimising Σ ((y − x·c) / y)² + λ·Σ (c − prior)². Rows are term vectors, y > 0. Terms that are
 * zero in every row keep their prior. A coefficient the unconstrained fit drives below zero is fixed at 0 and the
 * rest refitted (an active set, at most k rounds).
 */
export function fitRelativeRidge(rows: number[][], y: number[], prior: number[], lambda: number): number[] {
  const k = prior.length;
  const fixed = new Array<boolean>(k).fill(false);
  let c = [...prior];
  for (let round = 0; round <= k; round++) {
    const free = prior.map((_, j) => j).filter((j) => !fixed[j]);
    const m = free.length;
    const a = new Float64Array(m * m);
    const b = new Float64Array(m);
    for (let i = 0; i < rows.length; i++) {
      const w = 1 / (y[i]! * y[i]!);
      // Fixed coefficients are 0: they contribute nothing to the prediction.
      for (let p = 0; p < m; p++) {
        const xp = rows[i]![free[p]!]!;
        if (xp === 0) continue;
        b[p]! += w * xp * y[i]!;
        for (let q = 0; q < m; q++) a[p * m + q]! += w * xp * rows[i]![free[q]!]!;
      }
    }
    for (let p = 0; p < m; p++) {
      a[p * m + p]! += lambda;
      b[p]! += lambda * prior[free[p]!]!;
    }
    const x = solve(a, b, m);
    if (!x) return prior;
    c = new Array<number>(k).fill(0);
    free.forEach((j, p) => {
      c[j] = x[p]!;
    });
    const negative = free.filter((j) => c[j]! < 0);
    if (negative.length === 0) return c;
    for (const j of negative) fixed[j] = true;
  }
  return c.map((v) => Math.max(0, v));
}

/** Linear-interpolated quantile of a sorted array, q in [0, 1]. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}
