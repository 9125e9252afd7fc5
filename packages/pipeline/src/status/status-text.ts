// `abp status` for a person: one labelled line per part (continuation lines indented under it), every absent or
// unreadable part saying why in its own words. The --json output is the OperatorStatus itself; these lines add nothing.
import type { TaskState } from '../contracts/task-workflow.js';
import type { VerifiedSigner } from '@abp/grader/trust';
import type { Part } from './part.js';
import type { Backlog, QueueFacts, QueuesFacts, QueueWorker } from './queues.js';
import type { SignatureState } from './signatures.js';
import type { OperatorStatus } from './status.js';
import type { CheckpointCheck } from './store.js';

const LABEL_WIDTH = 16;
/** Picks listed by name; the rest are counted (`abp draw` and the record list them all). */
const PICKS_SHOWN = 10;

function labelled(label: string, first: string, more: readonly string[] = []): string[] {
  return [`${label.padEnd(LABEL_WIDTH)}${first}`, ...more.map((line) => `${''.padEnd(LABEL_WIDTH)}${line}`)];
}

function partLines<T>(label: string, part: Part<T>, describe: (value: T) => [string, ...string[]]): string[] {
  switch (part.$case) {
    case 'found': {
      const [first, ...more] = describe(part.value);
      return labelled(label, first, more);
    }
    case 'absent':
      return labelled(label, part.detail);
    case 'unavailable':
      return labelled(label, `unavailable: ${part.detail}`);
  }
}

function signerText(signer: VerifiedSigner): string {
  switch (signer.kind) {
    case 'keyed':
      return `key ${signer.keyId.slice(0, 16)}…`;
    case 'keyless':
      return `${signer.identity} (issuer ${signer.issuer})`;
  }
}

export function signatureText(signature: SignatureState): string {
  switch (signature.$case) {
    case 'verified':
      return `signed by ${signerText(signature.signer)} at ${signature.signedAt}, verified against trust root v${signature.trustRootVersion}`;
    case 'unsigned':
      return `NOT SIGNED: ${signature.detail}`;
    case 'unverified':
      return `signed (${signature.path}), not verified: ${signature.detail}`;
    case 'invalid':
      return `SIGNATURE INVALID (${signature.code}): ${signature.detail}`;
  }
}

function checkpointText(check: CheckpointCheck): string {
  switch (check.$case) {
    case 'verified':
      return 'signature and root verified';
    case 'unverified':
      return check.detail;
    case 'invalid':
      return `INVALID: ${check.detail}`;
  }
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

const staleFix: Record<OperatorStatus['stack']['components'][number]['name'], string> = {
  temporal: '`abp dev down` removes it',
  worker: '`abp dev down` removes it',
  simulator: '`abp sim down` removes it',
  serve: 'the next start of `abp serve` replaces it',
};

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** Workers named on a queue's line; the rest are counted. */
const WORKERS_SHOWN = 5;
/**
 * A worker whose latest poll is older than this is marked. A live worker polls again as soon as a long poll ends (about
 * a minute when idle); the server keeps listing a stopped one for about 5 minutes.
 */
export const SILENT_AFTER_MS = 120_000;

/** A duration as `4m12s`, `2h0m5s`, `3d4h`; under a second, `<1s`. */
export function formatAge(ms: number): string {
  const total = Math.floor(ms / 1_000);
  if (total < 1) return '<1s';
  const days = Math.floor(total / 86_400);
  const hours = Math.floor((total % 86_400) / 3_600);
  const minutes = Math.floor((total % 3_600) / 60);
  const seconds = total % 60;
  if (days > 0) return `${days}d${hours}h`;
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

function backlogText(backlog: QueueFacts['backlog']): string {
  const kinds: Backlog[] = [backlog.workflow, backlog.activity];
  const reported = kinds.flatMap((kind) => (kind.$case === 'reported' ? [kind] : []));
  // One kind without stats makes the sum a guess: say so rather than print a number that looks exact.
  if (reported.length < kinds.length) return 'backlog unknown';
  const count = reported.reduce((sum, kind) => sum + kind.count, 0);
  const oldest = Math.max(...reported.map((kind) => (kind.count > 0 ? kind.oldestAgeMs : 0)));
  return `backlog ${count}${count > 0 && oldest > 0 ? `, oldest ${formatAge(oldest)}` : ''}`;
}

function workerText(worker: QueueWorker, describedAt: string): string {
  if (worker.lastAccessAt === null) return worker.identity;
  const silentMs = Date.parse(describedAt) - Date.parse(worker.lastAccessAt);
  return silentMs > SILENT_AFTER_MS ? `${worker.identity} last polled ${formatAge(silentMs)} ago` : worker.identity;
}

/** One line per task queue: who polls it (or the command that starts a worker for it) and its backlog. */
export function queueLines(facts: QueuesFacts): [string, ...string[]] {
  const width = Math.max(...facts.queues.map((queue) => queue.name.length)) + 3;
  const lines = facts.queues.map((queue) => {
    const backlog = backlogText(queue.backlog);
    const name = queue.name.padEnd(width);
    const { workers } = queue;
    if (workers.length === 0)
      return `${name}no worker polls: start one with \`abp worker --queues ${queue.kind}\`; ${backlog}`;
    const shown = workers.slice(0, WORKERS_SHOWN).map((worker) => workerText(worker, facts.describedAt));
    const rest = workers.length - shown.length;
    return `${name}${plural(workers.length, 'worker')} (${shown.join(', ')}${rest > 0 ? `, … and ${rest} more` : ''}), ${backlog}`;
  });
  const [first = 'no task queues', ...more] = lines;
  return [first, ...more];
}

export function statusLines(status: OperatorStatus): string[] {
  const { stack } = status;
  const lines = [
    ...labelled('data directory', status.home),
    ...labelled('database', `${stack.database.kind} at ${stack.database.location}`),
  ];
  for (const component of stack.components) {
    const pid = component.pid === null ? '' : ` pid ${component.pid}`;
    const more: string[] = [];
    if (component.name === 'temporal' && stack.webUi !== null) more.push(`Web UI ${stack.webUi}`);
    if (component.state === 'stale-pid')
      more.push(`its pid file names a process that is gone; ${staleFix[component.name]}`);
    lines.push(
      ...labelled(
        component.name,
        `${component.state}${pid}${component.serves === null ? '' : `  ${component.serves}`}`,
        more,
      ),
    );
  }

  lines.push(
    ...partLines('trust root', status.trustRoot, (root) => [
      `v${root.version}, ${plural(root.keys, 'key')} (${root.path})`,
    ]),
  );
  lines.push(
    ...partLines('registry', status.registry, (registry) => [
      `${registry.version}: ${plural(registry.repositories, 'repository', 'repositories')}, digest ${registry.digest}`,
      `${plural(registry.publishedVersions, 'version')} published; previous ${registry.previous ?? 'none (the first)'}; ${registry.path}`,
      signatureText(registry.signature),
    ]),
  );
  lines.push(
    ...partLines('draws', status.draws, (draws) => {
      const { latest } = draws;
      const damaged = draws.unreadable.map(({ path, problem }) => `UNREADABLE ${path}: ${problem}`);
      if (latest === null) return [`${draws.count} published, none readable`, ...damaged];
      const shown = latest.picks.slice(0, PICKS_SHOWN).map((pick) => `${pick.order}. ${pick.repo}#${pick.issue}`);
      const rest = latest.picks.length - shown.length;
      return [
        `${draws.count} published; latest ${latest.id}: seed ${latest.seed}, ${latest.picks.length} of ${latest.requested} picks from ${latest.registryVersion}, drawn ${latest.drawnAt}`,
        `picks: ${shown.length === 0 ? 'none (the eligible backlog was empty)' : shown.join('  ')}${rest > 0 ? `  … and ${rest} more` : ''}`,
        signatureText(latest.signature),
        ...damaged,
      ];
    }),
  );
  lines.push(
    ...partLines('tasks', status.tasks, (tasks) => {
      const count = (state: TaskState) => `${tasks.byState[state]}${tasks.capped.includes(state) ? '+' : ''} ${state}`;
      const present = (Object.keys(tasks.byState) as TaskState[]).filter((state) => tasks.byState[state] > 0);
      if (present.length === 0) return ['none yet: `abp draw` starts one task per pick'];
      return [
        `${tasks.total}${tasks.capped.length > 0 ? '+' : ''}: ${present.map(count).join(', ')}`,
        ...tasks.stalled.map(
          (task) => `STALLED ${task.taskId}: its freeze waits out ${task.fault} since ${task.since} (${task.message})`,
        ),
      ];
    }),
  );
  lines.push(
    ...partLines('bundles', status.bundles, (bundles) => [
      `${bundles.count}, ${formatBytes(bundles.totalBytes)}, ${bundles.signed} signed (${bundles.root})`,
    ]),
  );
  lines.push(
    ...partLines('log', status.log, (log) => {
      const entries = `${plural(log.size, 'entry', 'entries')}${log.appendInProgress ? ' (one more being appended)' : ''}`;
      const checkpoint = log.latestCheckpoint;
      if (checkpoint === null) return [`${entries}, no signed checkpoint yet`];
      return [
        `${entries}; newest checkpoint covers ${checkpoint.size}, signed ${checkpoint.timestamp}, root ${checkpoint.rootHash}`,
        `${checkpointText(checkpoint.check)}; \`abp audit log\` checks them all`,
      ];
    }),
  );
  lines.push(
    ...partLines('schedule', status.schedule, (schedule) => {
      const last = schedule.lastRunAt === null ? '' : `; last ran ${schedule.lastRunAt}`;
      if (schedule.paused)
        return [
          `PAUSED${schedule.note === null ? '' : ` (${schedule.note})`}: no rotation runs until it is unpaused${last}`,
        ];
      return [`next rotation ${schedule.nextRuns[0] ?? 'none planned'} (Schedule ${schedule.scheduleId})${last}`];
    }),
  );
  lines.push(...partLines('queues', status.queues, queueLines));
  return lines;
}
