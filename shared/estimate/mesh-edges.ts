// How sharply a layer's contour turns where it crosses a triangle edge: the angle between the XY normals of the two
// triangles sharing the edge. The triangle across an edge is found through its end vertex's list of outgoing edges
// (a compressed adjacency list: typed arrays sized from the triangle and vertex counts, which the parsers cap), and
// only for edges a layer actually crosses, each once. Sharp turns are where the printer slows down
// (docs/estimate.md).

/**
 * Returns turnCos(e): the cosine of the turn at half-edge e (edge k of triangle f is e = 3·f + k; k = 0: a→b,
 * 1: b→c, 2: c→a), 1 on an open edge. `normalXY` holds each triangle's unit normal direction in XY.
 */
export function edgeTurns(
  indices: Uint32Array,
  vertexCount: number,
  normalXY: Float32Array,
): (halfEdge: number) => number {
  const halfEdges = indices.length;
  const start = new Int32Array(vertexCount + 1);
  for (let e = 0; e < halfEdges; e++) start[indices[e]! + 1]!++;
  for (let v = 0; v < vertexCount; v++) start[v + 1]! += start[v]!;
  const cursor = start.slice(0, vertexCount);
  const outgoing = new Int32Array(halfEdges); // half-edges grouped by their start vertex
  for (let e = 0; e < halfEdges; e++) outgoing[cursor[indices[e]!]!++] = e;
  const UNKNOWN = 2;
  const cosOf = new Float32Array(halfEdges).fill(UNKNOWN);
  const endOf = (e: number) => indices[e % 3 === 2 ? e - 2 : e + 1]!;
  const across = (e: number, u: number, w: number): number => {
    // The twin runs w → u (consistently oriented) or u → w (a flipped neighbour).
    for (let k = start[w]!; k < start[w + 1]!; k++) {
      const o = outgoing[k]!;
      if (o !== e && endOf(o) === u) return o;
    }
    for (let k = start[u]!; k < start[u + 1]!; k++) {
      const o = outgoing[k]!;
      if (o !== e && endOf(o) === w) return o;
    }
    return -1;
  };
  return (e) => {
    const known = cosOf[e]!;
    if (known !== UNKNOWN) return known;
    const other = across(e, indices[e]!, endOf(e));
    let cos = 1;
    if (other >= 0) {
      const fa = ((e / 3) | 0) * 2;
      const fb = ((other / 3) | 0) * 2;
      cos = normalXY[fa]! * normalXY[fb]! + normalXY[fa + 1]! * normalXY[fb + 1]!;
      cosOf[other] = cos;
    }
    cosOf[e] = cos;
    return cos;
  };
}
