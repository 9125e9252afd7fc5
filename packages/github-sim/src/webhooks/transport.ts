// One delivery attempt over HTTP: POST the exact body bytes with the given headers and wait for the
// whole response, at most `timeoutMs` (GitHub gives a receiver 10 s). The outcome is data; this
// module never throws for what the receiver or the network does.

export type AttemptOutcome =
  | { kind: 'delivered'; statusCode: number; durationMs: number }
  | { kind: 'http-error'; statusCode: number; durationMs: number }
  | { kind: 'timeout'; durationMs: number }
  | { kind: 'connection-error'; error: string; durationMs: number };

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

function describe(error: unknown): string {
  // undici puts the socket error (ECONNREFUSED, ECONNRESET, …) in `cause`.
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  const code = (cause as { code?: unknown } | undefined)?.code;
  const message = cause?.message ?? (error instanceof Error ? error.message : String(error));
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

export async function postWebhook(
  fetchImpl: FetchLike,
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  timeoutMs: number,
): Promise<AttemptOutcome> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const started = performance.now();
  const elapsed = (): number => Math.round((performance.now() - started) * 10) / 10;
  try {
    const response = await fetchImpl(url, {
      method: 'POST',
      headers,
      body,
      signal: controller.signal,
      redirect: 'manual',
    });
    // The receiver has answered only once its body is in; reading it also frees the connection.
    await response.arrayBuffer();
    const statusCode = response.status;
    return statusCode >= 200 && statusCode < 300
      ? { kind: 'delivered', statusCode, durationMs: elapsed() }
      : { kind: 'http-error', statusCode, durationMs: elapsed() };
  } catch (error) {
    if (timedOut) return { kind: 'timeout', durationMs: elapsed() };
    return { kind: 'connection-error', error: describe(error), durationMs: elapsed() };
  } finally {
    clearTimeout(timer);
  }
}
