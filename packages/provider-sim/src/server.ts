// Owns the stand-in's HTTP server: the three wire formats at the paths their clients call (Anthropic's
// /v1/messages; OpenAI's /v1/chat/completions and /v1/responses), each request checked for a key in its format's
// header, answered from the script, and logged with the exact usage it reported: the ledger a test holds an engine's
// recorded tokens against. GET /abp/served returns that ledger. Every refusal answers in the format's own error shape.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { messagesError, messagesResponse, messagesStream, readMessagesRequest } from './anthropic.js';
import { chatResponse, chatStream, openaiError, readChatRequest } from './openai-chat.js';
import { readResponsesRequest, responsesResponse, responsesStream } from './openai-responses.js';
import { chooseTurn, type ProviderScript, type ScriptedUsage } from './script.js';
import { isObject, type Json } from './wire.js';

export type ProviderApi = 'anthropic-messages' | 'openai-chat' | 'openai-responses';

/** One request the stand-in answered or refused, in the order they came. */
export interface ServedCall {
  api: ProviderApi;
  model: string;
  stream: boolean;
  /** The conversation and turn answered; null for a refusal. */
  conversation: string | null;
  turn: number | null;
  /** The usage the answer reported, as the protocol normalizes it; null for a refusal, which reports none. */
  usage: ScriptedUsage | null;
  /** Why it was refused; null when answered. */
  refused: string | null;
}

export interface ProviderStandIn {
  /** http://127.0.0.1:<port>: the base URL an engine is pointed at (ANTHROPIC_BASE_URL, OPENAI_BASE_URL …). */
  url: string;
  port: number;
  served(): ServedCall[];
  close(): Promise<void>;
}

export interface StandInOptions {
  script: ProviderScript;
  /** 0 (the default) for any free port. */
  port?: number;
  /** The address to listen on; 127.0.0.1 by default. */
  host?: string;
  /** Keys a request must carry; absent or empty, any key (or none) is accepted. */
  keys?: readonly string[];
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;

function apiOf(method: string, path: string): ProviderApi | null {
  if (method !== 'POST') return null;
  if (path === '/v1/messages') return 'anthropic-messages';
  if (path === '/v1/chat/completions') return 'openai-chat';
  if (path === '/v1/responses') return 'openai-responses';
  return null;
}

/** The key a request carries in its format's header: x-api-key for Anthropic (or a bearer token), else a bearer token. */
function keyOf(request: IncomingMessage, api: ProviderApi): string | null {
  const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1]?.trim() ?? null;
  if (api !== 'anthropic-messages') return bearer;
  const header = request.headers['x-api-key'];
  return (typeof header === 'string' ? header : null) ?? bearer;
}

async function readBody(request: IncomingMessage): Promise<Json | string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return `the request body is over ${MAX_BODY_BYTES} bytes`;
    chunks.push(chunk);
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return isObject(value) ? value : 'the request body is not a JSON object';
  } catch {
    return 'the request body is not JSON';
  }
}

function send(response: ServerResponse, status: number, body: Json): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function stream(response: ServerResponse, events: readonly string[]): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  for (const event of events) response.write(event);
  response.end();
}

function refusal(api: ProviderApi, status: number, message: string): Json {
  if (api === 'anthropic-messages')
    return messagesError(
      status === 401 ? 'authentication_error' : status === 404 ? 'not_found_error' : 'invalid_request_error',
      message,
    );
  return openaiError('invalid_request_error', status === 401 ? 'invalid_api_key' : null, message);
}

export async function startProviderStandIn(options: StandInOptions): Promise<ProviderStandIn> {
  const ledger: ServedCall[] = [];
  const keys = new Set(options.keys ?? []);

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = new URL(request.url ?? '/', 'http://stand-in').pathname;
    if (request.method === 'GET' && path === '/abp/served') return send(response, 200, { served: ledger });
    const api = apiOf(request.method ?? '', path);
    if (api === null) {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end(
        `the stand-in serves POST /v1/messages, /v1/chat/completions and /v1/responses, not ${request.method ?? ''} ${path}\n`,
      );
      return;
    }
    const record = (
      model: string,
      streamed: boolean,
      choice: { conversation: string; turn: number; usage: ScriptedUsage },
    ) =>
      ledger.push({
        api,
        model,
        stream: streamed,
        conversation: choice.conversation,
        turn: choice.turn,
        usage: { ...choice.usage },
        refused: null,
      });
    const refuse = (status: number, reason: string, model = '', streamed = false) => {
      ledger.push({ api, model, stream: streamed, conversation: null, turn: null, usage: null, refused: reason });
      send(response, status, refusal(api, status, reason));
    };
    const key = keyOf(request, api);
    if (keys.size > 0 && (key === null || !keys.has(key)))
      return refuse(401, key === null ? 'no API key was sent' : 'the API key is not one the stand-in accepts');
    const body = await readBody(request);
    if (typeof body === 'string') return refuse(400, body);
    const created = Math.floor(Date.now() / 1000);
    if (api === 'anthropic-messages') {
      const read = readMessagesRequest(body);
      const choice = chooseTurn(options.script, read);
      if (!choice.found) return refuse(400, choice.reason, read.model, read.stream);
      const at = { model: read.model, conversation: choice.conversation, turn: choice.turn };
      record(read.model, read.stream, { ...choice, usage: choice.answer.usage });
      return read.stream
        ? stream(response, messagesStream(choice.answer, at))
        : send(response, 200, messagesResponse(choice.answer, at));
    }
    if (api === 'openai-chat') {
      const read = readChatRequest(body);
      const choice = chooseTurn(options.script, read);
      if (!choice.found) return refuse(400, choice.reason, read.model, read.stream);
      if (choice.answer.usage.cacheWrite > 0)
        return refuse(400, 'the script gives this turn cache writes, which OpenAI does not report', read.model);
      const at = { model: read.model, conversation: choice.conversation, turn: choice.turn, created };
      record(read.model, read.stream, { ...choice, usage: choice.answer.usage });
      return read.stream
        ? stream(response, chatStream(choice.answer, { ...at, includeUsage: read.includeUsage }))
        : send(response, 200, chatResponse(choice.answer, at));
    }
    const read = readResponsesRequest(body);
    const choice = chooseTurn(options.script, read);
    if (!choice.found) return refuse(400, choice.reason, read.model, read.stream);
    if (choice.answer.usage.cacheWrite > 0)
      return refuse(400, 'the script gives this turn cache writes, which OpenAI does not report', read.model);
    const at = {
      model: read.model,
      conversation: choice.conversation,
      turn: choice.turn,
      created,
      customTools: read.customTools,
      echo: read.echo,
    };
    record(read.model, read.stream, { ...choice, usage: choice.answer.usage });
    return read.stream
      ? stream(response, responsesStream(choice.answer, at))
      : send(response, 200, responsesResponse(choice.answer, at));
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, { error: { message: (error as Error).message } });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    port,
    served: () => ledger.map((call) => ({ ...call })),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
