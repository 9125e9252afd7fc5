// A real webhook receiver on 127.0.0.1:0 for tests: it verifies each delivery's X-Hub-Signature-256
// with @octokit/webhooks' verifyAndReceive, as `abp serve` does, records what arrived, hands the
// typed events to handlers registered on `webhooks`, and can fail or hang on cue.
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhooks } from '@octokit/webhooks';

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  verified: boolean;
  /** What the receiver answered, or null when it hung. */
  status: number | null;
}

export interface ReceiverBehaviour {
  /** Answer 500 to this many requests (counted from the first) before accepting. */
  failFirst?: number;
  /** Never answer this many requests (counted from the first) before accepting. */
  hangFirst?: number;
}

export interface TestReceiver {
  url: string;
  /** Register typed handlers here (`webhooks.on('pull_request.closed', …)`). */
  webhooks: Webhooks;
  received: ReceivedDelivery[];
  /** Deliveries that were verified and accepted, in arrival order. */
  accepted(): ReceivedDelivery[];
  close(): Promise<void>;
}

export async function startReceiver(secret: string, behaviour: ReceiverBehaviour = {}): Promise<TestReceiver> {
  const webhooks = new Webhooks({ secret });
  const received: ReceivedDelivery[] = [];
  const hanging: ServerResponse[] = [];
  let requests = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const header = (name: string): string => String(request.headers[name] ?? '');
        let verified = true;
        try {
          await webhooks.verifyAndReceive({
            id: header('x-github-delivery'),
            name: header('x-github-event'),
            payload: body,
            signature: header('x-hub-signature-256'),
          });
        } catch {
          verified = false;
        }
        const index = requests++;
        const entry: ReceivedDelivery = { headers: request.headers, body, verified, status: null };
        received.push(entry);
        if (index < (behaviour.hangFirst ?? 0)) {
          hanging.push(response);
          return;
        }
        entry.status = !verified ? 401 : index < (behaviour.hangFirst ?? 0) + (behaviour.failFirst ?? 0) ? 500 : 202;
        response
          .writeHead(entry.status, { 'content-type': 'text/plain' })
          .end(entry.status === 202 ? 'accepted' : 'no');
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/github`,
    webhooks,
    received,
    accepted: () => received.filter((entry) => entry.status === 202),
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
