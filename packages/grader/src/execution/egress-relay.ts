// The inside end of the egress proxy, run as a program in a namespace that has no network: it listens on the
// namespace's own loopback, relays every connection to the proxy's Unix socket bound in, points the proxy variables
// every package tool reads (pip, npm, Yarn, Go, cargo, curl) and Java's proxy properties at itself, and runs the
// command as its child, exiting as the child did. The command can reach nothing the proxy does not open for it: there
// is no other route out.
// Node built-ins only: it runs with the host's node bound into an image that has no node_modules of abp's.
import { spawn } from 'node:child_process';
import { connect, createServer, type Socket } from 'node:net';
import { constants } from 'node:os';

const [socketPath, portText, separator, ...argv] = process.argv.slice(2);
const port = Number(portText);
if (socketPath === undefined || !(port > 0 && port < 65536) || separator !== '--' || argv.length === 0) {
  process.stderr.write('usage: egress-relay <proxy socket> <port> -- <program> [args…]\n');
  process.exit(2);
}

const server = createServer((client: Socket) => {
  const proxy = connect(socketPath);
  const close = () => {
    client.destroy();
    proxy.destroy();
  };
  for (const socket of [client, proxy]) {
    socket.once('error', close);
    socket.once('close', close);
  }
  client.pipe(proxy);
  proxy.pipe(client);
});

server.listen(port, '127.0.0.1', () => {
  const address = `http://127.0.0.1:${port}`;
  // npm reads its settings from variables in any case: every spelling the host had is replaced, none is left beside.
  const proxied = [
    'https_proxy',
    'http_proxy',
    'all_proxy',
    'npm_config_proxy',
    'npm_config_https_proxy',
    'pip_proxy',
    'cargo_http_proxy',
    // Yarn 2+ reads only its own settings, never the common variables.
    'yarn_http_proxy',
    'yarn_https_proxy',
  ];
  // Whatever the host bypassed its proxy for is reached through this one too: there is no other way out.
  const bypassed = ['no_proxy', 'npm_config_noproxy'];
  const env: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(process.env))
    if (![...proxied, ...bypassed].includes(name.toLowerCase())) env[name] = value;
  for (const name of proxied) env[name.toUpperCase()] = env[name] = address;
  for (const name of bypassed) env[name.toUpperCase()] = env[name] = 'localhost,127.0.0.1,::1';
  // Java reads no proxy variable, only its own properties; every JVM (Maven, its wrapper, Gradle) reads these.
  const java = ['http', 'https'].map((scheme) => `-D${scheme}.proxyHost=127.0.0.1 -D${scheme}.proxyPort=${port}`);
  env['JAVA_TOOL_OPTIONS'] = [env['JAVA_TOOL_OPTIONS'], ...java, '-Dhttp.nonProxyHosts=localhost|127.0.0.1']
    .filter((part) => part !== undefined && part !== '')
    .join(' ');
  const child = spawn(argv[0] as string, argv.slice(1), { stdio: 'inherit', env });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  child.once('error', (error: NodeJS.ErrnoException) => {
    process.stderr.write(`${argv[0] ?? ''}: ${error.code ?? error.message}\n`);
    process.exit(error.code === 'ENOENT' ? 127 : 126);
  });
  child.once('exit', (code, signal) => {
    server.close();
    if (signal !== null) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
      // A signal node ignores or handles itself (SIGPIPE, SIGUSR1) must not turn into success.
      process.exit(128 + (constants.signals[signal] ?? 0));
    }
    process.exit(code ?? 1);
  });
});
server.once('error', (error: NodeJS.ErrnoException) => {
  process.stderr.write(`egress-relay: cannot listen on 127.0.0.1:${port}: ${error.code ?? error.message}\n`);
  process.exit(126);
});
