// How `abp start` shows its progress (pipeline/events.ts): on a terminal, one line per finished stage and a live line
// for the running one (a spinner, or a bar with counts, and the elapsed time); off a terminal, the same lines plainly,
// without control characters, each count printed once when it changes; with --json, one JSON object per event.
import type { ProgressSink, StageName } from '../events.js';
import type { MainJobSummary } from '../main-job.js';

export type ProgressMode = 'tty' | 'plain' | 'json';

export interface ProgressPrinter {
  sink: ProgressSink;
  /** Stops the live line's timer and leaves the cursor on a fresh line. */
  close(): void;
}

interface Writable {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export function progressMode(options: { json?: boolean }, stream: Writable = process.stdout): ProgressMode {
  if (options.json) return 'json';
  return stream.isTTY === true && process.env.TERM !== 'dumb' ? 'tty' : 'plain';
}

export function seconds(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms - minutes * 60_000) / 1000)} s`;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const BAR_WIDTH = 20;

function bar(done: number, total: number): string {
  const filled = total === 0 ? BAR_WIDTH : Math.round((Math.min(done, total) / total) * BAR_WIDTH);
  return `[${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}]`;
}

function countText(done: number, total: number | null, unit: string): string {
  return total === null ? `${done} ${unit}` : `${done}/${total} ${unit}`;
}

interface Running {
  stage: StageName;
  title: string;
  startedAt: number;
  count: { done: number; total: number | null; unit: string; label: string | null } | null;
}

export function createProgressPrinter(mode: ProgressMode, stream: Writable = process.stdout): ProgressPrinter {
  const printer = mode === 'json' ? jsonPrinter(stream) : mode === 'tty' ? ttyPrinter(stream) : plainPrinter(stream);
  // Once closed, it prints nothing more: a stage that failed may still have work winding down behind it.
  let open = true;
  return {
    sink: (event) => {
      if (open) printer.sink(event);
    },
    close: () => {
      if (open) printer.close();
      open = false;
    },
  };
}

/** One JSON object per line; a count repeated unchanged is printed once. */
function jsonPrinter(stream: Writable): ProgressPrinter {
  let lastCount = '';
  return {
    sink: (event) => {
      const line = JSON.stringify(event);
      if (event.event === 'stage-progress') {
        if (line === lastCount) return;
        lastCount = line;
      }
      stream.write(`${line}\n`);
    },
    close: () => undefined,
  };
}

function plainPrinter(stream: Writable): ProgressPrinter {
  let lastCount = '';
  const write = (line: string) => stream.write(`${line}\n`);
  return {
    sink: (event) => {
      switch (event.event) {
        case 'stage-started':
          lastCount = '';
          write(`> ${event.stage}: ${event.title}`);
          break;
        case 'stage-progress': {
          const text = `  ${event.stage} ${countText(event.done, event.total, event.unit)}${event.label === null ? '' : ` (${event.label})`}`;
          if (text !== lastCount) write(text);
          lastCount = text;
          break;
        }
        case 'note':
          write(`  ${event.message}`);
          break;
        case 'stage-done':
          write(`ok ${event.stage} in ${seconds(event.ms)}: ${event.summary}`);
          break;
        case 'stage-failed':
          write(`FAILED ${event.stage} after ${seconds(event.ms)}: ${event.reason}`);
          if (event.log !== null) write(`  read ${event.log}`);
          break;
        case 'summary':
          for (const line of summaryLines(event.summary as MainJobSummary)) write(line);
          break;
      }
    },
    close: () => undefined,
  };
}

function ttyPrinter(stream: Writable): ProgressPrinter {
  const CLEAR = '\r\x1b[2K';
  const DIM = '\x1b[2m';
  const BOLD = '\x1b[1m';
  const GREEN = '\x1b[32m';
  const RED = '\x1b[31m';
  const RESET = '\x1b[0m';
  let running: Running | null = null;
  let frame = 0;
  let timer: NodeJS.Timeout | null = null;

  const live = (): string => {
    if (running === null) return '';
    const elapsed = seconds(Date.now() - running.startedAt);
    const spinner = SPINNER[frame % SPINNER.length] ?? '*';
    const { count } = running;
    const counted =
      count === null
        ? ''
        : count.total === null
          ? `  ${countText(count.done, null, count.unit)}`
          : `  ${bar(count.done, count.total)} ${countText(count.done, count.total, count.unit)}`;
    const label = count?.label ? ` · ${count.label}` : '';
    const line = `${spinner} ${BOLD}${running.stage}${RESET} ${running.title}${counted}${label}  ${DIM}${elapsed}${RESET}`;
    // A line wider than the terminal would wrap and leave a copy behind on every redraw.
    const width = stream.columns !== undefined && stream.columns >= 40 ? stream.columns : 120;
    return visibleLength(line) > width ? truncateVisible(line, width - 1) : line;
  };
  const redraw = () => stream.write(`${CLEAR}${live()}`);
  const above = (text: string) => stream.write(`${CLEAR}${text}\n${live()}`);
  const stopTimer = () => {
    if (timer !== null) clearInterval(timer);
    timer = null;
  };

  return {
    sink: (event) => {
      switch (event.event) {
        case 'stage-started':
          running = { stage: event.stage, title: event.title, startedAt: Date.now(), count: null };
          stopTimer();
          timer = setInterval(() => {
            frame += 1;
            redraw();
          }, 100);
          timer.unref();
          redraw();
          break;
        case 'stage-progress':
          if (running !== null)
            running.count = { done: event.done, total: event.total, unit: event.unit, label: event.label };
          redraw();
          break;
        case 'note':
          above(`  ${DIM}${event.message}${RESET}`);
          break;
        case 'stage-done':
          running = null;
          stopTimer();
          above(`${GREEN}✓${RESET} ${BOLD}${event.stage}${RESET} ${DIM}${seconds(event.ms)}${RESET}  ${event.summary}`);
          break;
        case 'stage-failed':
          running = null;
          stopTimer();
          above(`${RED}✗ ${event.stage} failed${RESET} after ${seconds(event.ms)}: ${event.reason}`);
          if (event.log !== null) above(`  read ${BOLD}${event.log}${RESET}`);
          break;
        case 'summary':
          for (const line of summaryLines(event.summary as MainJobSummary)) above(line);
          break;
      }
    },
    close: () => {
      stopTimer();
      running = null;
      stream.write(CLEAR);
    },
  };
}

// ANSI colour sequences take no room on the screen; the escape character is spelled out, as the regex must match it.
const ESC = String.fromCharCode(27);
const ANSI = new RegExp(`${ESC}\\[[0-9;]*m`, 'g');
const ANSI_PART = new RegExp(`(${ESC}\\[[0-9;]*m)`);
function visibleLength(text: string): number {
  return [...text.replace(ANSI, '')].length;
}
function truncateVisible(text: string, width: number): string {
  let out = '';
  let shown = 0;
  for (const part of text.split(ANSI_PART)) {
    if (part.startsWith(`${ESC}[`)) {
      out += part;
      continue;
    }
    for (const char of part) {
      if (shown >= width - 1) return `${out}…\x1b[0m`;
      out += char;
      shown += 1;
    }
  }
  return out;
}

/** The closing block: where to look, the figures, and how to stop. */
export function summaryLines(summary: MainJobSummary): string[] {
  const stages = Object.entries(summary.stages).map(([stage, ms]) => `${stage} ${seconds(ms)}`);
  const memory = summary.memory.map(
    (entry) => `${entry.process} ${entry.peakMiB === null ? 'n/a' : `${entry.peakMiB} MiB`}`,
  );
  const bundles = Object.entries(summary.bundles).map(([taskId, digest]) => `    ${taskId.padEnd(34)} ${digest}`);
  const rejected = summary.rejected.map((task) => `    ${task.taskId.padEnd(34)} ${task.reason}`);
  const drawn = summary.drawnTasks.map(
    (task) => `    ${task.taskId.padEnd(34)} ${task.state}${task.reason === null ? '' : `: ${task.reason}`}`,
  );
  const failing = summary.rejected.length > 0 || summary.notDelivered.length > 0;
  return [
    '',
    `Main job done in ${seconds(summary.totalMs)} (cold start ${seconds(summary.coldStartMs)}): ${summary.tasks.drawn} drawn with seed ${summary.seed}, ${summary.tasks.solved} solved, ${summary.tasks.merged} merged this run, ${summary.tasks.scored} scored${summary.tasks.rejected > 0 ? `, ${summary.tasks.rejected} rejected by the freeze` : ''}, ${summary.tasks.pulled} pulled and graded; the gate passed${failing ? ' on what froze, and the job exits 1 for the merged fixes that were not frozen and graded' : ''}.`,
    `  Temporal Web UI    ${summary.temporalUi ?? '(external cluster: see its own UI)'}`,
    `  HTML report        ${summary.report}`,
    `  results folder     ${summary.results}`,
    `  draw record        ${summary.drawRecord}`,
    `  re-derive the draw ${summary.auditCommand}`,
    `  baseline           ${summary.baseline}`,
    `  bundles (pulled and verified against the pinned trust root):`,
    ...bundles,
    ...(rejected.length > 0 ? ['  rejected by the freeze (reason code and detail):', ...rejected] : []),
    ...(summary.notDelivered.length > 0
      ? [
          '  merged but not frozen and graded:',
          ...summary.notDelivered.map((task) => `    ${task.taskId.padEnd(34)} ${task.why}`),
        ]
      : []),
    '  every drawn task, where it ended:',
    ...drawn,
    `  stage timings      ${stages.join(' · ')}`,
    `  peak memory        ${memory.join(' · ')}`,
    `  logs               worker ${summary.logs.worker}, simulator ${summary.logs.simulator}, serve ${summary.logs.serve}`,
    `  this run           ${summary.runFolder} (summary.json)`,
    '  The stack keeps running for `abp task list`, the Web UI and another run; `abp stop` stops all of it.',
  ];
}
