// The golden trace a solver contributes to its task (spec §4.2): the abp-trace/v1 file its engine printed while solving,
// checked before a freeze names it, so that a manifest never names a trace that is not there, is not one, is another
// task's, or would publish a secret. The checks run in the order that keeps a refusal from quoting a secret: the size,
// then the redaction list, then the schema line by line (whose messages may quote what a line holds).
import { sha256Hex } from '@abp/protocol/bundle/digest';
import { BoundedReadError, MiB, readBoundedFile } from '@abp/protocol/files/bounded-read';
import { validateTraceText } from '@abp/protocol/schemas/documents';
import { redactionListPath, secretRulesMatching } from '@abp/grader/redaction';
import { traceLimits } from '@abp/grader/traces';
import { FreezeError } from './errors.js';

/**
 * The most a golden trace may hold: the bound `abp run` keeps a trial's trace receipt within
 * (`traces/<trial>.abp-trace.jsonl`), so a receipt is a golden trace as it is, and a published one stays readable.
 */
export const GOLDEN_TRACE_MAX_BYTES = traceLimits.maxReceiptBytes;

export interface GoldenTrace {
  /** The file's bytes exactly as given: what is stored, served and signed. */
  bytes: Buffer;
  /** `sha256:<hex>` of those bytes. */
  digest: string;
}

const WHAT = 'a golden trace (an abp-trace/v1 file)';
const FIX =
  "give the abp-trace/v1 file the solving engine printed, one event per line (spec §6), such as the receipt `abp run` keeps in its results' traces/ folder";

async function readWithin(path: string): Promise<Buffer> {
  try {
    return await readBoundedFile(path, { maxBytes: GOLDEN_TRACE_MAX_BYTES, what: WHAT });
  } catch (error) {
    if (!(error instanceof BoundedReadError)) throw error;
    if (error.code === 'input-too-large')
      throw new FreezeError(
        'golden-trace-too-large',
        `${path} is larger than the ${GOLDEN_TRACE_MAX_BYTES / MiB} MiB a trace receipt of \`abp run\` holds: give the receipt abp run wrote for the solving trial, which keeps the trace within that bound`,
        { cause: error },
      );
    throw new FreezeError('golden-trace-unreadable', `${error.message}; ${FIX}`, { cause: error });
  }
}

function utf8(path: string, bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    throw new FreezeError('invalid-golden-trace', `${path} is not UTF-8 text; ${FIX}`, { cause: error });
  }
}

/** The trace at `path`, read whole within its bound and checked as task `taskId`'s; a FreezeError naming the line otherwise. */
export async function readGoldenTrace(path: string, taskId: string): Promise<GoldenTrace> {
  const bytes = await readWithin(path);
  const text = utf8(path, bytes);
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    const rules = secretRulesMatching(line);
    if (rules.length > 0)
      throw new FreezeError(
        'golden-trace-unredacted',
        `${path} line ${index + 1} holds what the redaction list's ${rules.length === 1 ? 'rule' : 'rules'} ${rules.join(', ')} ${rules.length === 1 ? 'hides' : 'hide'} (${redactionListPath}): a golden trace is published as it is, so redact it by that list (the receipt \`abp run\` writes is redacted) and give it again`,
      );
  }

  const { errors } = validateTraceText(text);
  const [first] = [...errors].sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
  if (first !== undefined) {
    const more = errors.length - 1;
    throw new FreezeError(
      'invalid-golden-trace',
      `${path}${first.line === undefined ? '' : ` line ${first.line}`}: ${first.path}: ${first.message}${more > 0 ? ` (and ${more} more ${more === 1 ? 'problem' : 'problems'}: \`abp validate ${path}\` lists them)` : ''}; ${FIX}`,
    );
  }
  // The rules above make the first event run.start: it names the task the trace solved.
  const startLine = lines.findIndex((line) => line.trim() !== '');
  const solved = (JSON.parse(lines[startLine] ?? '{}') as { task?: unknown }).task;
  if (solved !== taskId)
    throw new FreezeError(
      'invalid-golden-trace',
      `${path} line ${startLine + 1}: run.start names task ${JSON.stringify(solved)}, but this is task ${taskId}: give the trace of this task's fix`,
    );
  return { bytes, digest: `sha256:${sha256Hex(bytes)}` };
}
