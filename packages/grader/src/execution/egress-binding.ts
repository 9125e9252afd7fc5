// Owns how a command that has no network is handed the egress proxy (egress-proxy.ts): the proxy's Unix socket, the
// node that runs the relay and the relay itself bound in under /run/abp/egress, and the relay (egress-relay.ts) wrapped
// around the command, so the command's one way out is the proxy's allow-list. Shared by the host's sandbox and the
// task environments.
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';

/** Where the relay, the node that runs it and the proxy's socket are inside, and the port the relay listens on. */
const INSIDE = {
  node: '/run/abp/egress/node',
  relay: '/run/abp/egress/relay.js',
  socket: '/run/abp/egress/proxy.sock',
  port: '3128',
} as const;

// The build's copy: the relay runs under the bare node, which cannot load TypeScript.
const RELAY_PROGRAM = join(packageRoot, 'dist', 'execution', 'egress-relay.js');

/** bwrap's binds for the socket at `socket`, and the command line that runs `argv` behind the relay. */
export function egressBinding(socket: string, argv: readonly string[]): { binds: string[]; argv: string[] } {
  return {
    binds: [
      '--bind',
      socket,
      INSIDE.socket,
      '--ro-bind',
      process.execPath,
      INSIDE.node,
      '--ro-bind',
      RELAY_PROGRAM,
      INSIDE.relay,
    ],
    argv: [INSIDE.node, INSIDE.relay, INSIDE.socket, INSIDE.port, '--', ...argv],
  };
}
