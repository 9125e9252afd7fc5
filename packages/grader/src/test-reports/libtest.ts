// Owns reading the stdout of `cargo test` (libtest's default "pretty" format, one block per
// test binary) into the common result model. Each test is named `<target>::<libtest name>`, the target being
// the source cargo names on stderr as it starts each binary ("Running tests/cli.rs (…)", "Running unittests
// src/lib.rs (…)", "Doc-tests mycrate" as `doc-tests/mycrate`): the same name can be a test in several binaries.

import { TestReportError } from './errors.js';
import { testResult } from './model.js';
import type { TestResult, TestStatus } from './model.js';

const RUNNING = /^running (\d+) tests?$/;
const RESULT_LINE = /^test (.+?) \.\.\. (ok|FAILED|ignored(?:, (.*))?|bench:.*)$/;
const FAILURE_HEADER = /^---- (.+?) std(?:out|err) ----$/;

interface Block {
  readonly declared: number;
  readonly line: number;
  readonly results: Map<string, { status: TestStatus; message: string | undefined }>;
  readonly failureOutput: Map<string, string[]>;
}

// cargo's headers on stderr, one per test binary, in the order the binaries run and print their blocks.
const BINARY_HEADER = /^\s*(?:Running (?:unittests )?(\S+) \(|Doc-tests (\S+)\s*$)/;

/** `stderr` is cargo's; without it (libtest run directly) tests keep libtest's own names. */
export function parseLibtest(text: string, stderr?: string): TestResult[] {
  const blocks: Block[] = [];
  let current: Block | undefined;
  let failureName: string | undefined;
  text.split(/\r?\n/).forEach((line, index) => {
    const running = RUNNING.exec(line);
    if (running !== null) {
      current = { declared: Number(running[1]), line: index + 1, results: new Map(), failureOutput: new Map() };
      blocks.push(current);
      failureName = undefined;
      return;
    }
    if (current === undefined) return;
    if (line.startsWith('test result: ')) {
      checkComplete(current);
      current = undefined;
      return;
    }
    const header = FAILURE_HEADER.exec(line);
    if (header?.[1] !== undefined) {
      failureName = testName(header[1]);
      return;
    }
    if (line === 'failures:' || line === 'successes:') {
      failureName = undefined;
      return;
    }
    if (failureName !== undefined) {
      appendLine(current.failureOutput, failureName, line);
      return;
    }
    const result = RESULT_LINE.exec(line);
    if (result?.[1] !== undefined && result[2] !== undefined) {
      current.results.set(testName(result[1]), { status: statusOf(result[2]), message: result[3] });
    }
  });

  const targets = stderr === undefined ? null : binaryTargets(stderr, blocks.length);
  return blocks.flatMap((block, index) =>
    [...block.results].map(([name, { status, message }]) =>
      testResult(
        targets === null ? name : `${targets[index] ?? ''}::${name}`,
        status,
        null,
        status === 'fail' ? block.failureOutput.get(name)?.join('\n') : message,
      ),
    ),
  );
}

function binaryTargets(stderr: string, blockCount: number): string[] {
  const targets: string[] = [];
  for (const line of stderr.split(/\r?\n/)) {
    const header = BINARY_HEADER.exec(line);
    if (header === null) continue;
    targets.push(header[1] ?? `doc-tests/${header[2] ?? ''}`);
  }
  // Paired by position: a binary that printed no block (or cargo -v's command lines) would shift every later name.
  if (targets.length !== blockCount) {
    throw new TestReportError(
      'malformed-report',
      `libtest: cargo named ${targets.length} test binaries on stderr but stdout holds ${blockCount} libtest blocks; run cargo test without -v or -q, and with every test target on libtest's harness`,
    );
  }
  return targets;
}

/** A finished block must list every test it announced; fewer means another output format (terse, json). */
function checkComplete(block: Block): void {
  if (block.results.size !== block.declared) {
    throw new TestReportError(
      'malformed-report',
      `libtest: "running ${block.declared} tests" at line ${block.line} lists ${block.results.size} results; run the tests with libtest's default --format=pretty`,
    );
  }
}

function statusOf(result: string): TestStatus {
  if (result === 'ok' || result.startsWith('bench:')) return 'pass';
  if (result === 'FAILED') return 'fail';
  return 'skip';
}

/** `#[should_panic]` tests print as `name - should panic`; the suffix is not part of the name. */
function testName(printed: string): string {
  return printed.replace(/ - should panic$/, '');
}

function appendLine(map: Map<string, string[]>, key: string, line: string): void {
  const lines = map.get(key) ?? [];
  lines.push(line);
  map.set(key, lines);
}
