/**
 * Matches a request against the route manifest the way API Gateway HTTP APIs select a
 * route: path templates with `{param}` (one segment) and `{param+}` (greedy, last),
 * literal segments beating parameters, most specific route first.
 */

export interface RoutableDefinition {
  readonly method: string;
  readonly path: string;
}

type RouteMatch<R> =
  | { kind: 'route'; route: R; routeKey: string; pathParameters: Record<string, string> }
  | { kind: 'not_found' }
  | { kind: 'method_not_allowed'; allow: string[] };

type Segment = { type: 'literal'; value: string } | { type: 'param'; name: string } | { type: 'greedy'; name: string };

interface Compiled<R> {
  route: R;
  segments: Segment[];
}

export interface Router<R> {
  match(method: string, rawPath: string): RouteMatch<R>;
}

export function createRouter<R extends RoutableDefinition>(routes: readonly R[]): Router<R> {
  const compiled = routes.map((route) => ({ route, segments: compile(route.path) }));
  return {
    match(method, rawPath) {
      const parts = rawPath.split('/').slice(1).map(safeDecode);
      const upper = method.toUpperCase();
      const candidates: { c: Compiled<R>; params: Record<string, string> }[] = [];
      for (const c of compiled) {
        const params = matchSegments(c.segments, parts);
        if (params) candidates.push({ c, params });
      }
      if (candidates.length === 0) return { kind: 'not_found' };
      const forMethod = candidates.filter(({ c }) => c.route.method.toUpperCase() === upper);
      if (forMethod.length === 0) {
        const allow = [...new Set(candidates.map(({ c }) => c.route.method.toUpperCase()))].sort();
        return { kind: 'method_not_allowed', allow };
      }
      forMethod.sort((a, b) => compareSpecificity(a.c.segments, b.c.segments));
      const best = forMethod[0]!;
      return {
        kind: 'route',
        route: best.c.route,
        routeKey: `${best.c.route.method.toUpperCase()} ${best.c.route.path}`,
        pathParameters: best.params,
      };
    },
  };
}

function compile(path: string): Segment[] {
  return path
    .split('/')
    .slice(1)
    .map((seg, i, all): Segment => {
      const m = /^\{([A-Za-z0-9_.-]+)(\+)?\}$/.exec(seg);
      if (!m) return { type: 'literal', value: seg };
      if (m[2]) {
        if (i !== all.length - 1) throw new Error(`greedy parameter must be the last segment: ${path}`);
        return { type: 'greedy', name: m[1]! };
      }
      return { type: 'param', name: m[1]! };
    });
}

/** Parts are already URL-decoded, so path parameters arrive decoded. */
function matchSegments(segments: Segment[], parts: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    if (seg.type === 'greedy') {
      const rest = parts.slice(i);
      if (rest.length === 0 || rest.every((p) => p === '')) return undefined;
      params[seg.name] = rest.join('/');
      return params;
    }
    const part = parts[i];
    if (part === undefined) return undefined;
    if (seg.type === 'literal') {
      if (part !== seg.value) return undefined;
    } else {
      if (part === '') return undefined;
      params[seg.name] = part;
    }
  }
  return parts.length === segments.length ? params : undefined;
}

const rank = { literal: 0, param: 1, greedy: 2 } as const;

function compareSpecificity(a: Segment[], b: Segment[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const ra = a[i] ? rank[a[i]!.type] : 3;
    const rb = b[i] ? rank[b[i]!.type] : 3;
    if (ra !== rb) return ra - rb;
  }
  return 0;
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
