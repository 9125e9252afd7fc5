// The HTTP routing of `abp serve` over node:http: path patterns with parameters, one handler per method (a GET route
// answers HEAD too), request bodies read up to a per-route cap, and paths that try to climb out of their place refused
// before any route sees them. The webhook receiver is one route; the read-only API (serve/api.ts) adds its own.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { ServeLog } from './log.js';
import { sendReply, type ServeReply } from './reply.js';

export type { ServeReply } from './reply.js';

export interface ServeRequest {
  method: 'GET' | 'HEAD' | 'POST';
  headers: IncomingHttpHeaders;
  url: URL;
  /** The route's `:name` and `*name` parameters, percent-decoded. */
  params: Readonly<Record<string, string>>;
  /** The whole body; never longer than the route's `maxBodyBytes`. */
  body: Buffer;
  remoteAddress: string | null;
}

export interface Route {
  method: 'GET' | 'POST';
  /**
   * The path: literal segments, `:name` for exactly one segment, and as the last segment `*name` for one or more
   * (joined with "/"), e.g. `/v1/bundles/:digest` or `/v1/statements/:kind/*subject`.
   */
  path: string;
  /** Longer bodies are answered 413 without reaching the handler (0 for routes that take none). */
  maxBodyBytes: number;
  /**
   * Looked at before the body is read: an answer here refuses the request without reading (let alone keeping) its body,
   * e.g. a webhook delivery with no signature header.
   */
  admit?(request: Pick<ServeRequest, 'headers' | 'remoteAddress'>): ServeReply | null;
  /** How many requests of this route are read and handled at once; more are answered 503 with Retry-After. */
  maxConcurrent?: number;
  handle(request: ServeRequest): Promise<ServeReply>;
}

type PatternSegment =
  { $case: 'literal'; text: string } | { $case: 'one'; name: string } | { $case: 'rest'; name: string };

interface CompiledRoute {
  route: Route;
  segments: PatternSegment[];
}

export type RequestPath = { $case: 'path'; segments: string[] } | { $case: 'refused'; problem: string };

// Methods this server implements at all; anything else is 501, as RFC 9110 asks of an unknown method.
const knownMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

function compile(route: Route): CompiledRoute {
  const parts = route.path.split('/').slice(1);
  const segments = parts.map((part, index): PatternSegment => {
    if (part.startsWith(':')) return { $case: 'one', name: part.slice(1) };
    if (part.startsWith('*')) {
      if (index !== parts.length - 1) throw new Error(`route ${route.path}: a *parameter must be the last segment`);
      return { $case: 'rest', name: part.slice(1) };
    }
    return { $case: 'literal', text: part };
  });
  return { route, segments };
}

/**
 * The decoded segments of a request target's path, or why it is refused. The raw target is read before any URL
 * normalisation: WHATWG URL parsing resolves `..` and `%2e%2e` silently, which would turn a traversal attempt into an
 * ordinary request for another path instead of the refusal it deserves.
 */
export function requestPath(target: string): RequestPath {
  // An absolute-form target (a proxy's) names scheme and authority before the path.
  const withoutAuthority = target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  const rawPath = withoutAuthority.split(/[?#]/, 1)[0] ?? '';
  if (!rawPath.startsWith('/'))
    return {
      $case: 'refused',
      problem: `the request target ${JSON.stringify(target.slice(0, 200))} is not a path starting with "/"`,
    };
  const segments: string[] = [];
  for (const raw of rawPath.slice(1).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return {
        $case: 'refused',
        problem: `the path segment ${JSON.stringify(raw.slice(0, 200))} is not valid percent-encoded UTF-8`,
      };
    }
    if (segment === '.' || segment === '..')
      return {
        $case: 'refused',
        problem: 'the path holds a "." or ".." segment: paths name resources directly and never climb out of them',
      };
    if (/[/\\\0]/.test(segment))
      return {
        $case: 'refused',
        problem: `the path segment ${JSON.stringify(raw.slice(0, 200))} encodes "/", "\\" or NUL: write "/" between segments as itself`,
      };
    segments.push(segment);
  }
  return { $case: 'path', segments };
}

/** The route's parameters when `segments` match its pattern, else null. Empty segments match no parameter. */
function match(pattern: readonly PatternSegment[], segments: readonly string[]): Record<string, string> | null {
  const params: Record<string, string> = {};
  for (const [index, part] of pattern.entries()) {
    const segment = segments[index];
    switch (part.$case) {
      case 'literal':
        if (segment !== part.text) return null;
        break;
      case 'one':
        if (segment === undefined || segment === '') return null;
        params[part.name] = segment;
        break;
      case 'rest': {
        const rest = segments.slice(index);
        if (rest.length === 0 || rest.includes('')) return null;
        params[part.name] = rest.join('/');
        return params;
      }
    }
  }
  return segments.length === pattern.length ? params : null;
}

export function createRouter(
  routes: readonly Route[],
  log: ServeLog,
): (request: IncomingMessage, response: ServerResponse) => void {
  const compiled = routes.map(compile);
  const inFlight = new Map<Route, number>();
  return (request, response) => {
    const method = request.method ?? 'GET';
    const target = request.url ?? '/';
    const url = parseTarget(target);
    const path = target.split(/[?#]/, 1)[0] ?? target;
    const remoteAddress = request.socket.remoteAddress ?? null;
    const refuse = (status: number, error: string, headers: Record<string, string> = {}): void => {
      log({ kind: 'request-refused', method, path, status, remoteAddress });
      // Read and drop what the client still sends, so it sees this answer rather than a reset connection.
      request.resume();
      void sendReply(request, response, { status, body: { error }, headers });
    };

    if (!knownMethods.has(method)) return refuse(501, `${method} is not a method abp serve implements`);
    const parsed = requestPath(target);
    if (parsed.$case === 'refused') return refuse(400, parsed.problem);
    const atPath = compiled.flatMap(({ route, segments }) => {
      const params = match(segments, parsed.segments);
      return params === null ? [] : [{ route, params }];
    });
    // HEAD is GET without the body (RFC 9110 §9.3.2): every GET route answers it.
    const wanted = method === 'HEAD' ? 'GET' : method;
    const found = atPath.find(({ route }) => route.method === wanted);
    if (atPath.length === 0) return refuse(404, `nothing is served at ${path}`);
    if (!found) {
      const allowed = [
        ...new Set(atPath.flatMap(({ route }) => (route.method === 'GET' ? ['GET', 'HEAD'] : [route.method]))),
      ];
      return refuse(405, `${method} is not allowed on ${path}: use ${allowed.join(' or ')}`, {
        allow: allowed.join(', '),
      });
    }
    const { route, params } = found;
    const early = route.admit?.({ headers: request.headers, remoteAddress }) ?? null;
    if (early !== null) {
      // What the client still sends is drained, never kept.
      request.resume();
      void sendReply(request, response, early);
      return;
    }
    const busy = inFlight.get(route) ?? 0;
    if (route.maxConcurrent !== undefined && busy >= route.maxConcurrent)
      return refuse(503, `${route.maxConcurrent} requests to ${path} are being handled already: retry shortly`, {
        'retry-after': '1',
      });
    inFlight.set(route, busy + 1);
    void (async () => {
      try {
        const body = await readBody(request, route.maxBodyBytes);
        if (body === null) return refuse(413, `the body is larger than ${route.maxBodyBytes} bytes`);
        const reply = await route.handle({
          method: method as ServeRequest['method'],
          headers: request.headers,
          url,
          params,
          body,
          remoteAddress,
        });
        const status = await sendReply(request, response, reply);
        // Reads are logged here; the webhook route logs each delivery itself, with what it did.
        if (route.method === 'GET') {
          if (status >= 400) log({ kind: 'request-refused', method, path, status, remoteAddress });
          else log({ kind: 'request-served', method, path, status, remoteAddress });
        }
      } catch (error) {
        log({ kind: 'request-failed', method, path, error: error instanceof Error ? error.message : String(error) });
        if (!response.headersSent)
          await sendReply(request, response, { status: 500, body: { error: 'internal error; see the abp serve log' } });
        else response.destroy();
      } finally {
        inFlight.set(route, (inFlight.get(route) ?? 1) - 1);
      }
    })();
  };
}

function parseTarget(target: string): URL {
  try {
    return new URL(target, 'http://abp-serve.invalid');
  } catch {
    // requestPath refuses such a target; the URL only has to exist for the refusal.
    return new URL('/', 'http://abp-serve.invalid');
  }
}

const EMPTY = Buffer.alloc(0);

/** The body, or null when it is longer than `maxBytes` (then nothing past the cap is kept). */
function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | null> {
  if (Number(request.headers['content-length']) > maxBytes) return Promise.resolve(null);
  // No body announced (a read): nothing to wait for. What a client sends anyway is drained, never kept.
  if (request.headers['content-length'] === undefined && request.headers['transfer-encoding'] === undefined) {
    request.resume();
    return Promise.resolve(EMPTY);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    request.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length <= maxBytes) chunks.push(chunk);
    });
    request.once('end', () => resolve(length <= maxBytes ? Buffer.concat(chunks) : null));
    request.once('error', reject);
  });
}
