// The model's footprint on the build plate (convex hull of the XY projection), kept with the file so
// "does it fit after a rotation about Z" can be answered for any build volume without re-reading the mesh.
type P = [number, number];

export function convexHullXY(positions: Float64Array, maxPoints = 512): P[] {
  const pts: P[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < positions.length; i += 3) {
    const key = `${positions[i]},${positions[i + 1]}`;
    if (seen.has(key)) continue;
    seen.add(key);
    pts.push([positions[i], positions[i + 1]]);
  }
  pts.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (pts.length < 3) return pts;
  const cross = (o: P, a: P, b: P) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const half = (list: P[]) => {
    const out: P[] = [];
    for (const p of list) {
      while (out.length >= 2 && cross(out[out.length - 2], out[out.length - 1], p) <= 0) out.pop();
      out.push(p);
    }
    out.pop();
    return out;
  };
  const hull = [...half(pts), ...half([...pts].reverse())];
  if (hull.length <= maxPoints) return hull;
  // Thinning a hull keeps it inside the true hull; a tiny under-estimate on huge hulls is acceptable.
  const step = hull.length / maxPoints;
  return Array.from({ length: maxPoints }, (_, i) => hull[Math.floor(i * step)]);
}

/** Smallest-footprint rotation about Z that fits x*y, tried in 1° steps (hull extents are cheap to compute). */
export function fitRotatedXY(hull: P[], x: number, y: number): { fits: boolean; angle_deg: number | null } {
  for (let deg = 0; deg < 180; deg++) {
    const a = (deg * Math.PI) / 180;
    const c = Math.cos(a);
    const s = Math.sin(a);
    let minU = Infinity, maxU = -Infinity, minV = Infinity, maxV = -Infinity;
    for (const [px, py] of hull) {
      const u = px * c - py * s;
      const v = px * s + py * c;
      if (u < minU) minU = u;
      if (u > maxU) maxU = u;
      if (v < minV) minV = v;
      if (v > maxV) maxV = v;
    }
    if (maxU - minU <= x && maxV - minV <= y) return { fits: true, angle_deg: deg };
  }
  return { fits: false, angle_deg: null };
}
