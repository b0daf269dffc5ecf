/** The routes of the app's route tree (Fastify's `printRoutes`) under a prefix, as sorted `METHOD url`. */
export function routesUnder(tree: string, prefix: string): string[] {
  const found: string[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    const path = (depth ? stack[depth - 1]! : '') + (depth ? '' : '/') + m[2]!;
    stack[depth] = path.replace(/^\/\//, '/');
    const methods = (m[3] ?? '').split(', ').filter((x) => x === 'GET' || x === 'POST');
    const url = stack[depth]!;
    if (url === prefix || url.startsWith(`${prefix}/`))
      for (const method of methods) found.push(`${method} ${url}`);
  }
  return found.sort();
}
