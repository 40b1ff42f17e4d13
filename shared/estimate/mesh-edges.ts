// Which triangle lies across each triangle edge, found through each vertex's list of outgoing edges (a compressed
// adjacency list: typed arrays sized from the triangle and vertex counts, which the parsers cap). The estimator
// reads from it how sharply a layer's contour turns where it crosses an edge: sharp turns are where the printer
// slows down (docs/estimate.md).

/**
 * twin[3·f + k] = 3·g + m when edge k of triangle f (k = 0: a→b, 1: b→c, 2: c→a) is edge m of triangle g; −1 on
 * an open edge. Where more than two triangles share an edge, the first match pairs and the others stay open.
 */
export function edgeTwins(indices: Uint32Array, vertexCount: number): Int32Array {
  const halfEdges = indices.length;
  const start = new Int32Array(vertexCount + 1);
  for (let e = 0; e < halfEdges; e++) start[indices[e] + 1]++;
  for (let v = 0; v < vertexCount; v++) start[v + 1] += start[v];
  const cursor = start.slice(0, vertexCount);
  const outgoing = new Int32Array(halfEdges); // half-edges grouped by their start vertex
  for (let e = 0; e < halfEdges; e++) outgoing[cursor[indices[e]]++] = e;
  const twin = new Int32Array(halfEdges).fill(-1);
  // The vertex each half-edge ends at.
  const end = new Uint32Array(halfEdges);
  for (let f = 0; f < halfEdges; f += 3) {
    end[f] = indices[f + 1];
    end[f + 1] = indices[f + 2];
    end[f + 2] = indices[f];
  }
  for (let e = 0; e < halfEdges; e++) {
    if (twin[e] >= 0) continue;
    const u = indices[e];
    const w = end[e];
    // The twin runs w → u (consistently oriented) or u → w (a flipped neighbour).
    for (let k = start[w]; k < start[w + 1]; k++) {
      const o = outgoing[k];
      if (o !== e && twin[o] < 0 && end[o] === u) {
        twin[e] = o;
        twin[o] = e;
        break;
      }
    }
    if (twin[e] >= 0) continue;
    for (let k = start[u]; k < start[u + 1]; k++) {
      const o = outgoing[k];
      if (o !== e && twin[o] < 0 && end[o] === w) {
        twin[e] = o;
        twin[o] = e;
        break;
      }
    }
  }
  return twin;
}
