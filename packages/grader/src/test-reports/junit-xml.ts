// Owns reading JUnit XML as written by pytest --junitxml, Maven Surefire, mocha's xunit reporter, CTest's
// --output-junit, the Vitest and jest-junit reporters, Node's built-in junit reporter and bun test's --reporter=junit into
// the common result model.

import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { TestReportError } from './errors.js';
import { relativeToRoot, secondsToMs, testResult } from './model.js';
import type { ParseOptions, TestResult, TestStatus } from './model.js';
import { PYTEST_NODE_ID_PLUGIN } from './pytest-node-ids.js';

type XmlNode = Record<string, unknown>;

const REPEATED_ELEMENTS = new Set([
  'testsuites',
  'testsuite',
  'testcase',
  'failure',
  'error',
  'skipped',
  'properties',
  'property',
  '#comment',
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  // Node's reporter writes newlines in attributes as &#10;.
  htmlEntities: true,
  commentPropName: '#comment',
  isArray: (name) => REPEATED_ELEMENTS.has(name),
});

export function parseJUnitXml(text: string, options: ParseOptions = {}): TestResult[] {
  // Reports come from code the agent could have touched: no DTDs, so no entity expansion.
  if (/<!DOCTYPE/i.test(text)) {
    throw new TestReportError(
      'malformed-report',
      'junit-xml: the report declares a DOCTYPE; JUnit reports never need one, refusing to expand its entities',
    );
  }
  const validation = XMLValidator.validate(text);
  if (validation !== true) {
    const { msg, line, col } = validation.err;
    throw new TestReportError(
      'malformed-report',
      `junit-xml: not well-formed XML at line ${line}, column ${col}: ${msg}`,
    );
  }
  let document: XmlNode;
  try {
    document = parser.parse(text) as XmlNode;
  } catch (error) {
    // What the validator lets through and the parser still refuses (an unclosed processing instruction, nesting past
    // its limit) is as unreadable as anything the validator names.
    throw new TestReportError('malformed-report', `junit-xml: ${(error as Error).message}`, { cause: error });
  }
  const roots = [...children(document, 'testsuites'), ...children(document, 'testsuite')];
  if (roots.length === 0) {
    const found = Object.keys(document).filter((key) => !key.startsWith('?') && key !== '#comment');
    throw new TestReportError(
      'malformed-report',
      `junit-xml: the root element is ${found.length > 0 ? `<${found.join('>, <')}>` : 'missing'}; expected <testsuites> or <testsuite>`,
    );
  }
  const context: WalkContext = {
    nodeReporter: isNodeReporterDocument(document),
    bun: children(document, 'testsuites').some((suites) => attribute(suites, 'name') === 'bun test'),
    rootDir: options.rootDir,
    results: [],
  };
  for (const suites of children(document, 'testsuites')) walk(suites, [], context);
  for (const suite of children(document, 'testsuite')) walkSuite(suite, [], context);
  return context.results;
}

interface WalkContext {
  readonly nodeReporter: boolean;
  readonly bun: boolean;
  readonly rootDir: string | undefined;
  readonly results: TestResult[];
}

/** Visits a container's suites and cases; `suitePath` holds the names of enclosing <testsuite>s. */
function walk(container: XmlNode, suitePath: readonly string[], context: WalkContext): void {
  for (const testcase of children(container, 'testcase'))
    context.results.push(readTestCase(testcase, suitePath, context));
  for (const suite of children(container, 'testsuite')) walkSuite(suite, suitePath, context);
  for (const suites of children(container, 'testsuites')) walk(suites, suitePath, context);
}

function walkSuite(suite: XmlNode, suitePath: readonly string[], context: WalkContext): void {
  const name = attribute(suite, 'name');
  walk(suite, name === undefined ? suitePath : [...suitePath, name], context);
}

function readTestCase(testcase: XmlNode, suitePath: readonly string[], context: WalkContext): TestResult {
  const name = attribute(testcase, 'name');
  if (name === undefined) {
    throw new TestReportError(
      'malformed-report',
      `junit-xml: a <testcase> in suite "${suitePath.join(' › ')}" has no name attribute`,
    );
  }
  const classname = attribute(testcase, 'classname') ?? '';
  const seconds = Number.parseFloat(attribute(testcase, 'time') ?? '');
  const durationMs = Number.isFinite(seconds) ? secondsToMs(seconds) : null;
  const { status, detail } = outcome(testcase);
  return testResult(testCaseId(name, classname, testcase, suitePath, context), status, durationMs, detail);
}

function testCaseId(
  name: string,
  classname: string,
  testcase: XmlNode,
  suitePath: readonly string[],
  context: WalkContext,
): string {
  if (context.nodeReporter && classname === 'test') {
    // Node writes the placeholder classname "test" for every case and encodes describe()
    // blocks as nested <testsuite>s, so the suite path is what names the test.
    const title = [...suitePath, relativeToRoot(name, context.rootDir)].join(' › ');
    const file = attribute(testcase, 'file');
    return file === undefined ? title : `${relativeToRoot(file, context.rootDir)}::${title}`;
  }
  if (context.bun) return bunTestId(name, classname, testcase, suitePath);
  const nodeId = pytestNodeId(testcase, classname, name);
  if (nodeId !== undefined) return nodeId;
  // CTest (the one writer that gives every case a `status`) repeats the test's name as its classname: the id is the name
  // CTest registered it under. Other writers that repeat it (jest-junit's default) keep both, as ids always had.
  const ctest = attribute(testcase, 'status') !== undefined && classname === name;
  return classname === '' || ctest ? name : `${classname}::${name}`;
}

/**
 * The node id abp's pytest plugin recorded (runner-recipes.ts), when it is the one pytest's own junit writer turns
 * into this classname and name: folders become dotted, `.py` goes, the last `::` part is the name.
 */
function pytestNodeId(testcase: XmlNode, classname: string, name: string): string | undefined {
  const recorded = children(testcase, 'properties')
    .flatMap((properties) => children(properties, 'property'))
    .filter((property) => attribute(property, 'name') === PYTEST_NODE_ID_PLUGIN.property)
    .map((property) => attribute(property, 'value'));
  const nodeId = recorded.length === 1 ? recorded[0] : undefined;
  if (nodeId === undefined) return undefined;
  const bracket = nodeId.indexOf('[');
  const parts = (bracket === -1 ? nodeId : nodeId.slice(0, bracket)).split('::');
  const params = bracket === -1 ? '' : nodeId.slice(bracket);
  const [path = '', ...rest] = parts;
  const names = [path.replaceAll('/', '.').replace(/\.py$/, ''), ...rest];
  const expected = { classname: names.slice(0, -1).join('.'), name: `${names.at(-1) ?? ''}${params}` };
  return expected.classname === classname && expected.name === name ? nodeId : undefined;
}

/**
 * bun test: its file, describe blocks and test joined by ` > `, as bun prints them under each file. Since bun 1.2.x the
 * describe blocks are <testsuite>s inside the file's; bun 1.2.0 and earlier write them only as the classname, innermost
 * first, its `>` escaped twice.
 */
function bunTestId(name: string, classname: string, testcase: XmlNode, suitePath: readonly string[]): string {
  const file = attribute(testcase, 'file') ?? suitePath[0] ?? '';
  const titles =
    suitePath.length > 1 ? suitePath.slice(1) : classname === '' ? [] : unescapeXml(classname).split(' > ').reverse();
  return [file, ...titles, name].filter((part) => part !== '').join(' > ');
}

const XML_ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' };

function unescapeXml(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp);/g, (_, entity: string) => XML_ENTITIES[entity] ?? '');
}

function outcome(testcase: XmlNode): { status: TestStatus; detail: string | undefined } {
  const checks: readonly [string, TestStatus][] = [
    ['failure', 'fail'],
    ['error', 'error'],
    ['skipped', 'skip'],
  ];
  for (const [element, status] of checks) {
    const found = children(testcase, element)[0];
    if (found !== undefined) {
      const message = attribute(found, 'message');
      return { status, detail: message !== undefined && message.trim() !== '' ? message : textOf(found) };
    }
  }
  // CTest marks a test it did not run by the case's status (DISABLED in the project, or never started) and no child.
  const ctestStatus = attribute(testcase, 'status');
  if (ctestStatus === 'disabled' || ctestStatus === 'notrun')
    return { status: 'skip', detail: `CTest did not run it (${ctestStatus})` };
  return { status: 'pass', detail: undefined };
}

/** Node's junit reporter closes the document with `<!-- tests N -->`-style summary comments. */
function isNodeReporterDocument(document: XmlNode): boolean {
  return children(document, 'testsuites').some((suites) =>
    (suites['#comment'] as unknown[] | undefined)?.some(
      (comment) => typeof comment === 'string' && /^\s*tests \d+\s*$/.test(comment),
    ),
  );
}

/** Element children as objects: an element with neither attributes nor children parses as a bare string. */
function children(node: XmlNode, name: string): XmlNode[] {
  const value = node[name];
  if (!Array.isArray(value)) return [];
  return value.map((item: unknown) =>
    typeof item === 'object' && item !== null ? (item as XmlNode) : { '#text': item },
  );
}

function attribute(node: XmlNode, name: string): string | undefined {
  const value = node[`@_${name}`];
  return typeof value === 'string' ? value : undefined;
}

function textOf(node: XmlNode): string | undefined {
  const value = node['#text'];
  return typeof value === 'string' ? value : undefined;
}
