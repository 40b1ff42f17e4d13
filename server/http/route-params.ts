// Named parameters of the matched route (/files/:file_id). The router sets every parameter its path names before
// the handler runs, so a missing one is a routing bug, not a bad request.

/** The parameter `name` of the matched route; throws (a 500) if the router did not set it. */
export function routeParam(ctx: { params: Record<string, string> }, name: string): string {
  const value = ctx.params[name];
  if (value === undefined) throw new Error(`route parameter "${name}" is not set: the route does not name it`);
  return value;
}
