// How `abp serve` answers: a handler's reply as data (JSON, bytes in memory, or an open file streamed from disk), and
// the HTTP semantics applied to it in one place: strong entity tags, If-None-Match → 304, single byte ranges → 206 or
// 416, HEAD without the body. Files are streamed, never read whole: a bundle can be large.
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { noneMatch, parseRange, rangeAllowed, type RangeRequest } from './ranges.js';

export type Content =
  /**
   * A small representation held in memory (a published document, a signature); its ETag is the sha256 of `bytes`,
   * given when already known (a cached answer) so it is not hashed again for every request.
   */
  | { $case: 'bytes'; bytes: Buffer; contentType: string; etag?: string }
  /** An open file, streamed. The router closes it whatever the answer; `etag` is given, since hashing means reading. */
  | { $case: 'file'; file: FileHandle; size: number; contentType: string; etag: string };

export type ServeReply =
  | {
      status: number;
      /** Sent as JSON. */
      body: unknown;
      headers?: Record<string, string>;
    }
  | {
      /** 200: a part of it is 206, chosen here from the request's Range. */
      status: 200;
      content: Content;
      headers?: Record<string, string>;
    };

/** A strong entity tag naming bytes by their sha256: `"sha256:<hex>"`, the same form as a bundle digest. */
export function sha256Etag(bytes: Buffer | string): string {
  return `"sha256:${createHash('sha256').update(bytes).digest('hex')}"`;
}

/** Sends `reply` as the answer to `request`; resolves with the status sent once the body is written (or abandoned). */
export async function sendReply(
  request: IncomingMessage,
  response: ServerResponse,
  reply: ServeReply,
): Promise<number> {
  const read = request.method === 'GET' || request.method === 'HEAD';
  const head = request.method === 'HEAD';
  if (!('content' in reply)) {
    const text = JSON.stringify(reply.body);
    const etag = read && reply.status === 200 ? sha256Etag(text) : undefined;
    if (noneMatch(request.headers['if-none-match'], etag)) return notModified(response, etag, reply.headers);
    response.writeHead(reply.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(text)),
      ...(etag === undefined ? {} : { etag }),
      ...reply.headers,
    });
    response.end(head ? undefined : text);
    return reply.status;
  }

  const { content } = reply;
  try {
    const size = content.$case === 'bytes' ? content.bytes.length : content.size;
    const etag = content.$case === 'bytes' ? (content.etag ?? sha256Etag(content.bytes)) : content.etag;
    if (read && noneMatch(request.headers['if-none-match'], etag)) return notModified(response, etag, reply.headers);
    const range: RangeRequest = rangeAllowed(header(request, 'if-range'), etag)
      ? parseRange(header(request, 'range'), size)
      : { $case: 'whole' };
    const common = { 'accept-ranges': 'bytes', etag, ...reply.headers };
    if (range.$case === 'unsatisfiable') {
      const text = JSON.stringify({
        error: `the Range ${header(request, 'range') ?? ''} lies outside the ${size} bytes of ${request.url ?? 'this resource'}; ask for bytes=0-${Math.max(0, size - 1)} at most`,
      });
      response.writeHead(416, {
        ...common,
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(text)),
        'content-range': `bytes */${size}`,
      });
      response.end(head ? undefined : text);
      return 416;
    }
    const start = range.$case === 'part' ? range.start : 0;
    const end = range.$case === 'part' ? range.end : size - 1;
    const status = range.$case === 'part' ? 206 : 200;
    response.writeHead(status, {
      ...common,
      'content-type': content.contentType,
      'content-length': String(end - start + 1),
      ...(range.$case === 'part' ? { 'content-range': `bytes ${start}-${end}/${size}` } : {}),
    });
    if (head || end < start) {
      response.end();
    } else if (content.$case === 'bytes') {
      response.end(content.bytes.subarray(start, end + 1));
    } else {
      try {
        // The stream closes the file when it ends or is destroyed (autoClose).
        await pipeline(content.file.createReadStream({ start, end, autoClose: true }), response);
      } catch {
        // The client went away mid-transfer, or the disk failed: the connection is cut, which a client sees as a
        // short body against Content-Length, never as a complete one.
        response.destroy();
      }
    }
    return status;
  } finally {
    // A file that was not streamed (HEAD, 304, 416, an empty part) is closed here; closing a streamed one is a no-op.
    if (content.$case === 'file') await content.file.close().catch(() => undefined);
  }
}

function header(request: IncomingMessage, name: 'range' | 'if-range'): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function notModified(
  response: ServerResponse,
  etag: string | undefined,
  headers: Record<string, string> | undefined,
): number {
  response.writeHead(304, { ...(etag === undefined ? {} : { etag }), ...headers });
  response.end();
  return 304;
}
