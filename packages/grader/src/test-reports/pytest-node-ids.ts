// Owns the pytest plugin abp runs with every pytest command and the property it leaves in the JUnit report.

/**
 * A pytest plugin that records each test's node id in the JUnit report: the report's dotted classname cannot be
 * turned back into a path (a folder may hold dots, a class may inherit its tests from another file), and pytest's
 * `file` attribute names where the function is defined rather than the test's own file. The reader accepts a
 * recorded id only where it agrees with the classname and name, so a planted plugin cannot rename one test another.
 */
const property = 'abp-node-id';

export const PYTEST_NODE_ID_PLUGIN = {
  module: 'abp_pytest_node_ids',
  property,
  text: [
    "# Written by abp for this run: records each test's pytest node id in the JUnit report.",
    'import pytest',
    '',
    '',
    '@pytest.hookimpl(tryfirst=True)',
    'def pytest_runtest_setup(item):',
    `    item.user_properties.append(("${property}", item.nodeid))`,
    '',
  ].join('\n'),
} as const;
