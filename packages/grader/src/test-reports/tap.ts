// Owns reading TAP (versions 12 to 14) from a runner's stdout into the common result model, in the two ways runners
// use it (docs/test-ids.md). 'tap' (ava, node-tap, QUnit): every top-level test point is a test, and TAP 14 subtests
// (a `# Subtest: name` header, then the block indented four spaces, then the summary point) nest them, named by their
// path joined with ` > ` as node-tap prints it. 'tape': the points are assertions, and each test is the `# name`
// comment tape prints before its assertions (tape prints subtests the same way, flat, under their own name).
// One pass over the lines, no recursion and no backtracking regular expressions: a report of any size or depth reads
// in linear time.

import { stripVTControlCharacters } from 'node:util';
import { TestReportError } from './errors.js';
import { testResult } from './model.js';
import type { TestResult, TestStatus } from './model.js';

export type TapDialect = 'tap' | 'tape';

/** How node-tap joins a subtest's path (`test/a.test.js > parent > child`) in its own reporters. */
const SUBTEST_SEPARATOR = ' > ';

// A test's message is bounded by testResult; what is kept of each YAML block and failed assertion only needs to reach it.
const MAX_KEPT_CHARS = 8000;
const MAX_FAILED_ASSERTIONS = 5;

type Directive = 'skip' | 'todo' | null;

interface Point {
  readonly ok: boolean;
  readonly number: number | null;
  readonly description: string;
  readonly directive: Directive;
  readonly durationMs: number | null;
  /** TAP 14's buffered subtest: `ok 1 - name {`, its block, then `}`. */
  readonly opensBlock: boolean;
}

/** A block of points at one indentation: the whole output, or one subtest's body. */
interface Frame {
  readonly depth: number;
  /** The path its tests are named under ('' for the whole output). */
  readonly path: string;
  /** Points accepted here, tests and assertions alike: what the plan counts and the next number follows. */
  points: number;
  numbered: boolean | null;
  plan: { count: number; leading: boolean; afterBailOut: boolean } | null;
  /** A `# Subtest: name` header at this indentation, naming the next point here as a test. */
  announced: string | null;
  /** A subtest body that ended, waiting for its summary point at this indentation. */
  pending: Frame | null;
  /** The point that opened this block (buffered subtests only). */
  opener: Point | null;
  childTests: number;
  childFailed: boolean;
  assertionFailed: boolean;
  readonly failedAssertions: string[];
}

/** The last point read, open until the next line that is TAP: its YAML block may follow. */
interface OpenPoint {
  readonly point: Point;
  readonly frame: Frame;
  readonly indent: number;
  readonly kind: 'test' | 'assertion';
  /** The subtest body it summarizes. */
  readonly block: Frame | null;
  yaml: string[];
  yamlChars: number;
}

/** A tape test: its `# name` comment and the assertions under it. */
interface TapeTest {
  readonly name: string;
  readonly directive: Directive;
  failed: boolean;
  readonly failedAssertions: string[];
}

export function parseTap(text: string, dialect: TapDialect): TestResult[] {
  return new TapReader(dialect).read(text);
}

class TapReader {
  private readonly results: TestResult[] = [];
  private readonly stack: Frame[] = [newFrame(0, '')];
  private open: OpenPoint | null = null;
  private yamlIndent = -1;
  private sawTap = false;
  private bailOut: string | null = null;
  private tapeTest: TapeTest | null = null;

  constructor(private readonly dialect: TapDialect) {}

  read(text: string): TestResult[] {
    let start = 0;
    while (start <= text.length) {
      const end = text.indexOf('\n', start);
      const stop = end === -1 ? text.length : end;
      let line = text.slice(start, stop);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      // Colors (a task's FORCE_COLOR reaches QUnit's and ava's output) are never part of a name.
      if (line.includes('\u001b')) line = stripVTControlCharacters(line);
      this.line(line);
      if (end === -1) break;
      start = end + 1;
    }
    return this.finish();
  }

  private line(line: string): void {
    let indent = 0;
    while (line.charCodeAt(indent) === 32) indent += 1;
    const content = line.slice(indent);
    if (this.yamlIndent !== -1) {
      if (content === '...' && indent === this.yamlIndent) {
        this.yamlIndent = -1;
        return;
      }
      // A block that is never closed ends where the indentation drops back, so it cannot swallow the rest.
      if (content === '' || indent >= this.yamlIndent) {
        this.keepYaml(line.slice(Math.min(indent, this.yamlIndent)));
        return;
      }
      this.yamlIndent = -1;
    }
    if (content === '') return;
    if (content === '---' && this.open !== null && indent === this.open.indent + 2) {
      this.yamlIndent = indent;
      return;
    }
    if (content.startsWith('Bail out!')) {
      this.sawTap = true;
      this.bailOut ??= content.slice('Bail out!'.length).trim();
      return;
    }
    if (content.startsWith('TAP version ')) {
      this.sawTap = true;
      return;
    }
    // Four spaces a level (TAP 14); anything else is output the tests printed.
    if (indent % 4 !== 0) return;
    const depth = indent / 4;
    if (this.dialect === 'tape') {
      if (depth === 0) this.tapeLine(content);
      return;
    }
    this.tapLine(content, depth);
  }

  // ---- 'tap': tests, subtests and their assertions ----

  private tapLine(content: string, depth: number): void {
    const point = parsePoint(content);
    const plan = point === null ? parsePlan(content) : null;
    const header = point === null && plan === null ? parseSubtestHeader(content) : null;
    const closesBuffered = content === '}';
    if (point === null && plan === null && header === null && !closesBuffered) return;

    const top = this.top();
    if (closesBuffered) {
      // A `}` ends a buffered subtest's body only where one is open: elsewhere it is a test's printed output.
      if (this.stack[depth + 1]?.opener == null) return;
    } else if (depth > top.depth) {
      // A subtest's body opens one level down, and only after a header announced it: indented lines that merely look
      // like TAP are output the tests printed.
      if (depth !== top.depth + 1 || top.announced === null) return;
      if (point !== null && point.number !== null && point.number !== 1) return;
      this.push(depth, joinPath(top.path, top.announced));
    } else if (depth < top.depth && plan !== null) {
      // A plan further out while a subtest runs is printed output (a range such as `1..10` in a log line).
      return;
    }
    const frame = this.stack[depth];
    if (frame === undefined) return;
    if (point !== null && !inSequence(frame, point)) return;

    this.closeOpen();
    this.unwindTo(depth);
    this.sawTap = true;
    if (closesBuffered) {
      this.closeBuffered(frame);
      return;
    }
    if (plan !== null) {
      this.orphanPending(frame);
      setPlan(frame, plan, this.bailOut !== null);
      return;
    }
    if (header !== null) {
      this.orphanPending(frame);
      frame.announced = header;
      return;
    }
    if (point !== null) this.tapPoint(frame, point, depth);
  }

  private tapPoint(frame: Frame, point: Point, depth: number): void {
    frame.points += 1;
    frame.numbered ??= point.number !== null;
    const block = frame.pending;
    const isTest =
      depth === 0 || frame.announced !== null || block !== null || point.opensBlock || point.directive !== null;
    if (point.opensBlock) {
      // Its body follows and `}` closes it; the point is judged then, with what the body held.
      const body = this.push(depth + 1, joinPath(frame.path, describe(point, frame)));
      body.opener = point;
      frame.announced = null;
      return;
    }
    frame.pending = null;
    frame.announced = null;
    this.open = {
      point,
      frame,
      indent: depth * 4,
      kind: isTest ? 'test' : 'assertion',
      block,
      yaml: [],
      yamlChars: 0,
    };
  }

  /** Ends the last point read: a test becomes a result (or, as a subtest's parent, a fact about it), an assertion a fact about its test. */
  private closeOpen(): void {
    const open = this.open;
    if (open === null) return;
    this.open = null;
    this.yamlIndent = -1;
    const { point, frame, block } = open;
    const yaml = open.yaml.join('\n');
    if (this.dialect === 'tape') {
      this.closeTapeAssertion(point, yaml);
      return;
    }
    if (open.kind === 'assertion') {
      if (!point.ok && point.directive === null) {
        frame.assertionFailed = true;
        keepFailedAssertion(frame.failedAssertions, point, yaml);
      }
      return;
    }
    this.completeTest(frame, point, block, yaml);
  }

  /**
   * Only tests with no subtests are results: a parent that merely aggregates its children would count their failures
   * twice. A parent appears only when it failed by itself (its own assertion, a throw, a plan it did not meet) while
   * no child failed, or when one of its own assertions failed: that failure belongs to no child and must not be lost.
   */
  private completeTest(frame: Frame, point: Point, block: Frame | null, yaml: string): void {
    const shortPlan = block?.plan != null && block.points < block.plan.count;
    const failed = point.directive === null && (!point.ok || shortPlan);
    const message = [
      ...(block?.failedAssertions ?? []),
      ...(shortPlan && block?.plan != null ? [`planned ${block.plan.count} points, ${block.points} reported`] : []),
      yaml,
    ].join('\n');
    if (block === null || block.childTests === 0) {
      const status: TestStatus = point.directive !== null ? 'skip' : failed ? 'fail' : 'pass';
      const id = joinPath(frame.path, describe(point, frame));
      this.results.push(testResult(id, status, point.durationMs, status === 'pass' ? undefined : message));
    } else if (failed && (block.assertionFailed || !block.childFailed)) {
      this.results.push(testResult(block.path, 'fail', point.durationMs, message));
    }
    frame.childTests += 1;
    if (failed) frame.childFailed = true;
  }

  private closeBuffered(frame: Frame): void {
    const body = frame.pending;
    frame.pending = null;
    if (body?.opener == null) return;
    this.completeTest(frame, body.opener, body, '');
  }

  /** Leaves the frames deeper than `depth`: the one right below waits for its summary point, deeper ones never got theirs. */
  private unwindTo(depth: number): void {
    while (this.stack.length - 1 > depth) {
      const body = this.stack.pop() as Frame;
      const parent = this.top();
      this.orphanPending(body);
      if (body.depth === depth + 1) {
        this.orphanPending(parent);
        parent.pending = body;
      } else this.orphan(body, parent);
    }
  }

  private orphanPending(frame: Frame): void {
    if (frame.pending !== null) this.orphan(frame.pending, frame);
    frame.pending = null;
  }

  /** A subtest whose summary point never came: its tests stand, and it is an error, as the run stopped inside it. */
  private orphan(body: Frame, parent: Frame): void {
    const name = body.path === '' ? '(unnamed subtest)' : body.path;
    this.results.push(
      testResult(
        name,
        'error',
        null,
        `the subtest printed no result line: the run stopped inside it, or its output was cut\n${body.failedAssertions.join('\n')}`,
      ),
    );
    parent.childTests += 1;
    parent.childFailed = true;
  }

  private push(depth: number, path: string): Frame {
    const frame = newFrame(depth, path);
    this.stack.push(frame);
    return frame;
  }

  private top(): Frame {
    return this.stack[this.stack.length - 1] as Frame;
  }

  private keepYaml(line: string): void {
    const open = this.open;
    if (open === null || open.yamlChars > MAX_KEPT_CHARS) return;
    open.yaml.push(line);
    open.yamlChars += line.length + 1;
  }

  // ---- 'tape': `# name` comments and the assertions under them ----

  private tapeLine(content: string): void {
    const root = this.stack[0] as Frame;
    const point = parsePoint(content);
    if (point !== null) {
      if (!inSequence(root, point)) return;
      this.closeOpen();
      this.sawTap = true;
      root.points += 1;
      root.numbered ??= point.number !== null;
      this.tapeTest ??= { name: '', directive: null, failed: false, failedAssertions: [] };
      this.open = { point, frame: root, indent: 0, kind: 'assertion', block: null, yaml: [], yamlChars: 0 };
      return;
    }
    const plan = parsePlan(content);
    if (plan !== null) {
      this.closeOpen();
      this.sawTap = true;
      setPlan(root, plan, this.bailOut !== null);
      return;
    }
    // tape prints its counts as comments after the plan; before it, a comment at the margin names the next test.
    if (!content.startsWith('#') || root.plan !== null) return;
    this.closeOpen();
    this.endTapeTest();
    const heading = content.slice(1).trim();
    const directive = /^(SKIP|TODO) /.exec(heading)?.[1];
    this.tapeTest = {
      name: directive === undefined ? heading : heading.slice(5).trim(),
      directive: directive === 'SKIP' ? 'skip' : directive === 'TODO' ? 'todo' : null,
      failed: false,
      failedAssertions: [],
    };
  }

  private closeTapeAssertion(point: Point, yaml: string): void {
    const test = this.tapeTest;
    if (test === null || point.ok || point.directive !== null) return;
    test.failed = true;
    keepFailedAssertion(test.failedAssertions, point, yaml);
  }

  private endTapeTest(): void {
    const test = this.tapeTest;
    this.tapeTest = null;
    if (test === null) return;
    const status: TestStatus = test.directive !== null ? 'skip' : test.failed ? 'fail' : 'pass';
    // Assertions before tape's first `# name` (tape prints none) still count, under a name that says so.
    const id = test.name === '' ? '(assertions outside any test)' : test.name;
    this.results.push(testResult(id, status, null, status === 'pass' ? undefined : test.failedAssertions.join('\n')));
  }

  // ---- the end of the output ----

  private finish(): TestResult[] {
    this.closeOpen();
    this.unwindTo(0);
    const root = this.stack[0] as Frame;
    this.orphanPending(root);
    if (this.dialect === 'tape') this.endTapeTest();
    if (!this.sawTap) {
      throw new TestReportError(
        'malformed-report',
        `${this.dialect}: the output holds no TAP (no "TAP version" line, no "ok"/"not ok" line, no plan); run ava with --tap, node-tap with --reporter=tap, qunit with --reporter tap or tape as it is, and read its stdout`,
      );
    }
    this.checkFinished(root);
    return this.results;
  }

  /**
   * A run that did not finish is refused, not read: the grader judges only the frozen ids, so an error result of its
   * own would not stop a run cut short after the graded tests from counting as a pass. Finished means the plan came
   * last (or a plan given first was met), after any `Bail out!`: QUnit prints one for a file that fails to load and
   * then runs the other files and prints its plan, so that run finished, and its bail-out is an error result.
   */
  private checkFinished(root: Frame): void {
    const plan = root.plan;
    const unfinished = (why: string) =>
      new TestReportError(
        'unfinished-run',
        `${this.dialect}: ${why}, so the tests after that point never reported; find what stopped the run in its output (a crash, a kill, a timeout, a bail-out) and let it run to its end`,
      );
    if (this.bailOut !== null && (plan === null || !plan.afterBailOut))
      throw unfinished(`the run bailed out ("Bail out! ${this.bailOut}")`);
    if (plan === null)
      throw unfinished(
        'the output ends without its plan line (1..N): the runner crashed, was killed, or a test ended the process',
      );
    if (plan.leading && root.points < plan.count)
      throw unfinished(`the plan 1..${plan.count} came first but only ${root.points} points followed`);
    if (this.bailOut !== null) this.results.push(testResult('[bail out]', 'error', null, `Bail out! ${this.bailOut}`));
    // The run finished, yet fewer points than planned: ava counts the tests a failed hook or --fail-fast left unrun.
    if (root.points < plan.count)
      this.results.push(
        testResult(
          '[tests missing from the plan]',
          'error',
          null,
          `the plan was 1..${plan.count} but ${root.points} points reported`,
        ),
      );
  }
}

function newFrame(depth: number, path: string): Frame {
  return {
    depth,
    path,
    points: 0,
    numbered: null,
    plan: null,
    announced: null,
    pending: null,
    opener: null,
    childTests: 0,
    childFailed: false,
    assertionFailed: false,
    failedAssertions: [],
  };
}

/**
 * Whether a point continues its block's numbering: the runners number every point, so one out of sequence (or
 * unnumbered among numbered ones) is output a test printed that happens to read as TAP, e.g. `console.log('ok')`.
 */
function inSequence(frame: Frame, point: Point): boolean {
  if (point.number === null) return frame.numbered !== true;
  return point.number === frame.points + 1;
}

/** The first plan of a block, unless it came first: a later one (the plan is the last line) replaces it. */
function setPlan(frame: Frame, count: number, afterBailOut: boolean): void {
  if (frame.plan?.leading === true) return;
  frame.plan = { count, leading: frame.plan === null && frame.points === 0, afterBailOut };
}

function keepFailedAssertion(kept: string[], point: Point, yaml: string): void {
  if (kept.length >= MAX_FAILED_ASSERTIONS) return;
  kept.push(`not ok - ${point.description}${yaml === '' ? '' : `\n${yaml.slice(0, MAX_KEPT_CHARS)}`}`);
}

function joinPath(path: string, name: string): string {
  return path === '' ? name : `${path}${SUBTEST_SEPARATOR}${name}`;
}

/** A point's name; an unnamed one (TAP allows `ok 3`) by its number in its block. */
function describe(point: Point, frame: Frame): string {
  return point.description === '' ? `(test ${point.number ?? frame.points})` : point.description;
}

function parsePlan(content: string): number | null {
  if (!content.startsWith('1..')) return null;
  let end = 3;
  while (end < content.length && isDigit(content.charCodeAt(end))) end += 1;
  // `1..0 # Skipped: reason`: whatever follows the count is a comment.
  if (end === 3 || (end < content.length && content[end] !== ' ' && content[end] !== '\t')) return null;
  return Number(content.slice(3, end));
}

function parseSubtestHeader(content: string): string | null {
  if (content === '# Subtest') return '';
  if (!content.startsWith('# Subtest: ')) return null;
  return unescapeTap(content.slice('# Subtest: '.length).trim());
}

/** `ok 1 - name # SKIP reason`, `not ok 2 name # TODO`, `ok - name # time=1.2ms`, `ok 3 - name {`, or null. */
function parsePoint(content: string): Point | null {
  let rest: string;
  let ok: boolean;
  if (content.startsWith('ok')) {
    ok = true;
    rest = content.slice(2);
  } else if (content.startsWith('not ok')) {
    ok = false;
    rest = content.slice(6);
  } else return null;
  // "okay", "ok:" and "not okay" are words, not points.
  if (rest !== '' && rest[0] !== ' ' && rest[0] !== '\t') return null;
  rest = rest.trim();
  let digits = 0;
  while (digits < rest.length && isDigit(rest.charCodeAt(digits))) digits += 1;
  let number: number | null = null;
  if (digits > 0 && (digits === rest.length || rest[digits] === ' ' || rest[digits] === '\t')) {
    number = Number(rest.slice(0, digits));
    rest = rest.slice(digits).trimStart();
  }
  if (rest === '-') rest = '';
  else if (rest.startsWith('- ')) rest = rest.slice(2).trimStart();
  const opensBlock = rest === '{' || rest.endsWith(' {');
  if (opensBlock) rest = rest.slice(0, -1).trimEnd();
  const { description, directive, durationMs } = splitComment(rest);
  return { ok, number, description, directive, durationMs, opensBlock };
}

/**
 * The description, and the directive after an unescaped `#` (`# SKIP`, `# TODO`, any case, as TAP says). A `#` that
 * starts no directive is part of the description (ava and QUnit print titles as they are); node-tap's own trailing
 * `# time=1.2ms` is not.
 */
function splitComment(text: string): { description: string; directive: Directive; durationMs: number | null } {
  let body = text;
  let durationMs: number | null = null;
  const timeAt = body.lastIndexOf('# time=');
  if (timeAt === 0 || (timeAt > 0 && isSpace(body.charCodeAt(timeAt - 1)))) {
    const time = /^# time=(\d+(?:\.\d+)?)(ms|s)?\s*$/.exec(body.slice(timeAt));
    if (time?.[1] !== undefined) {
      durationMs = Math.round(Number(time[1]) * (time[2] === 's' ? 1e6 : 1e3)) / 1e3;
      body = body.slice(0, timeAt).trimEnd();
    }
  }
  for (let at = body.indexOf('#'); at !== -1; at = body.indexOf('#', at + 1)) {
    if (at > 0 && !isSpace(body.charCodeAt(at - 1))) continue;
    let word = at + 1;
    while (word < body.length && isSpace(body.charCodeAt(word))) word += 1;
    const keyword = body.slice(word, word + 4).toLowerCase();
    if (keyword !== 'skip' && keyword !== 'todo') continue;
    return { description: unescapeTap(body.slice(0, at).trim()), directive: keyword, durationMs };
  }
  return { description: unescapeTap(body.trim()), directive: null, durationMs };
}

/** TAP 14 escapes `#` and `\` in descriptions (node-tap prints `has \# hash`). */
function unescapeTap(text: string): string {
  return text.includes('\\') ? text.replace(/\\([\\#])/g, '$1') : text;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9;
}
