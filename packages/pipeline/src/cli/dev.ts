// `abp dev up|down|status|check`: the embedded stack on this machine.
import { resolveStackConfig } from '../worker/config.js';
import { stackDown, stackStatus, stackUp, type StackStatus } from '../dev-stack/dev-stack.js';
import { runWiringCheck } from '../worker/wiring-check.js';
import { CommandFailed, createOutput, type Output, type OutputOptions } from '@abp/grader/cli';

function printStatus(out: Output, status: StackStatus): void {
  out.line(`data directory  ${status.home}`);
  out.line(`database        ${status.database.kind} at ${status.database.location}`);
  for (const component of status.components) {
    const pid = component.pid === null ? '' : ` pid ${component.pid}`;
    out.line(`${component.name.padEnd(15)} ${component.state}${pid}  ${component.serves}`);
    if (component.ui && component.state === 'running') out.line(`${''.padEnd(15)} Web UI ${component.ui}`);
    if (component.state === 'stale-pid')
      out.line(`${''.padEnd(15)} the pid file names a process that is gone; \`abp dev down\` removes it`);
  }
}

function printCheck(out: Output, check: Awaited<ReturnType<typeof runWiringCheck>>): void {
  out.line(
    `wiring check passed: workflow ${check.workflowId} ran on worker ${check.after.workerIdentity} in ${check.roundTripMs} ms`,
  );
}

export async function devUpCommand(options: OutputOptions & { check?: boolean }): Promise<void> {
  const out = createOutput(options);
  const config = resolveStackConfig();
  const started = performance.now();
  const status = await stackUp(config, { onStep: (line) => out.line(line) });
  const upMs = Math.round(performance.now() - started);
  out.line(`stack up in ${(upMs / 1000).toFixed(1)} s`);
  printStatus(out, status);
  let check: Awaited<ReturnType<typeof runWiringCheck>> | null = null;
  if (options.check) {
    check = await runWiringCheck(config);
    printCheck(out, check);
  }
  out.data({ ...status, upMs, check });
}

export async function devDownCommand(options: OutputOptions): Promise<void> {
  const out = createOutput(options);
  const results = await stackDown(resolveStackConfig());
  for (const { name, result } of results) out.line(`${name.padEnd(15)} ${result}`);
  out.data({ components: results });
}

export function devStatusCommand(options: OutputOptions): void {
  const out = createOutput(options);
  const status = stackStatus(resolveStackConfig());
  printStatus(out, status);
  out.data(status);
}

export async function devCheckCommand(options: OutputOptions): Promise<void> {
  const out = createOutput(options);
  const config = resolveStackConfig();
  const worker = stackStatus(config).components.find((component) => component.name === 'worker');
  if (worker?.state !== 'running')
    throw new CommandFailed('not-running', 'no abp worker is running: start the stack with `abp dev up`');
  const check = await runWiringCheck(config);
  printCheck(out, check);
  out.data(check);
}
