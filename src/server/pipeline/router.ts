/**
 * The one router of the service: the contract's endpoints and the pages (probes, the OpenAPI
 * document, the hosted checkout), by method and path template (`/v1/charges/{id}`). A template
 * with fewer `{param}` segments wins over one with more (`/checkout/assets/{name}` over
 * `/checkout/{id}`); a parameter never matches an empty segment. HEAD is answered by the GET
 * route, without its body. A path known to an endpoint under other methods is a 405 naming them.
 *
 * Hand-written rather than a framework's: it matches the few dozen templates of the contract in
 * a fraction of a microsecond (docs/architecture.md, "One pipeline").
 */

interface Entry<T> {
  segs: string[];
  /** the parameter's name at each segment, or null for a literal segment */
  names: (string | null)[];
  params: number;
  value: T;
}

export type Match<T> = { value: T; params: Record<string, string> };

export class Router<T> {
  private readonly byMethod = new Map<string, Entry<T>[]>();
  /** methods of the endpoints' templates, by template (for 405) */
  private readonly methodsOf = new Map<string, string[]>();
  private readonly templates: Entry<string>[] = [];

  /** Adds a route; `allow` lists it in the 405 of its template (endpoints do, pages do not). */
  add(method: string, template: string, value: T, allow = false): void {
    const segs = template.split('/');
    const names = segs.map((s) => (/^\{[a-z_]+\}$/i.test(s) ? s.slice(1, -1) : null));
    const entry = { segs, names, params: names.filter(Boolean).length, value };
    let list = this.byMethod.get(method);
    if (!list) this.byMethod.set(method, (list = []));
    list.push(entry);
    list.sort((a, b) => a.params - b.params);
    if (allow) {
      let methods = this.methodsOf.get(template);
      if (!methods) {
        this.methodsOf.set(template, (methods = []));
        this.templates.push({ ...entry, value: template });
        this.templates.sort((a, b) => a.params - b.params);
      }
      methods.push(method);
    }
  }

  /** The route of a method and a (decoded) path, or undefined. */
  match(method: string, path: string): Match<T> | undefined {
    const list = this.byMethod.get(method === 'HEAD' ? 'GET' : method);
    if (!list) return undefined;
    const segs = path.split('/');
    for (const r of list) {
      const params = matchSegments(r, segs);
      if (params) return { value: r.value, params };
    }
    return undefined;
  }

  /** The methods an endpoint template at this path takes, when the path has one (for a 405). */
  allowed(path: string): string[] | undefined {
    const segs = path.split('/');
    for (const t of this.templates) if (matchSegments(t, segs)) return this.methodsOf.get(t.value);
    return undefined;
  }
}

function matchSegments(r: Entry<unknown>, segs: string[]): Record<string, string> | undefined {
  if (r.segs.length !== segs.length) return undefined;
  let params: Record<string, string> | undefined;
  for (let i = 0; i < segs.length; i++) {
    const name = r.names[i];
    const s = segs[i]!;
    if (name === null || name === undefined) {
      if (s !== r.segs[i]) return undefined;
    } else {
      if (s === '') return undefined;
      (params ??= {})[name] = s;
    }
  }
  return params ?? {};
}

/** A path with its percent-encoding undone (as sent when it cannot be decoded). */
export function decodePath(path: string): string {
  if (!path.includes('%')) return path;
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}
