// The disclosure a fix pull request carries (spec §4.5) and the body around it.
import { describe, expect, it } from 'vitest';
import { disclosureText, fixPullRequestBody } from '../../src/github/disclosure.js';
import { PullRequestError } from '../../src/github/pulls.js';

const disclosure = disclosureText({
  taskId: 'task-2026q4-0007',
  engine: 'example-engine@2.1.0',
  registryVersion: '2026Q4',
  drawSeed: 424242,
});

describe('disclosureText', () => {
  it('says who produced the fix, for ABP, from which draw, and that a maintainer merge makes it a task', () => {
    expect(disclosure).toContain(
      'produced by the coding agent `example-engine@2.1.0` for the Agent Benchmark Protocol',
    );
    expect(disclosure).toContain('seed 424242');
    expect(disclosure).toContain('ABP registry 2026Q4');
    expect(disclosure).toContain('task `task-2026q4-0007`');
    expect(disclosure).toMatch(/If a maintainer merges it, .* become a benchmark task/);
    expect(disclosure).toMatch(/never on this repository/);
  });

  it('says how to opt the repository out', () => {
    expect(disclosure).toMatch(/To opt this repository out of ABP, say so in a comment on this pull request/);
  });

  it('is link-free', () => {
    expect(disclosure).not.toMatch(/https?:|www\.|\]\(/);
  });
});

describe('fixPullRequestBody', () => {
  it('starts with the closing keyword, then the summary, then the disclosure', () => {
    const body = fixPullRequestBody({
      issue: 12,
      summary: 'Slugs keep accented letters.\n',
      disclosure,
      contributing: null,
    });
    expect(body.split('\n')[0]).toBe('Fixes #12');
    expect(body).toBe(`Fixes #12\n\nSlugs keep accented letters.\n\n---\n\n${disclosure}`);
    expect(body).not.toContain('contribution guidelines');
  });

  it('quotes the first lines of the contribution rules', () => {
    const contributing = `# Contributing\n\nRun \`npm test\` before sending a pull request.   \n${Array.from({ length: 20 }, (_, index) => `rule ${index}`).join('\n')}\n`;
    const body = fixPullRequestBody({ issue: 3, summary: 'Fix.', disclosure, contributing });
    expect(body).toContain(
      "This change follows the repository's contribution guidelines, which begin:\n\n> # Contributing\n>\n> Run `npm test` before sending a pull request.\n> rule 0\n",
    );
    expect(body).toContain('> rule 4\n');
    expect(body).not.toContain('rule 5');
    expect(body.indexOf('contribution guidelines')).toBeLessThan(body.indexOf('**Disclosure.**'));
  });

  it('links the contribution rules when given their URL', () => {
    const body = fixPullRequestBody({
      issue: 3,
      summary: 'Fix.',
      disclosure,
      contributing: 'https://github.com/octo/repo/blob/main/CONTRIBUTING.md',
    });
    expect(body).toContain(
      "This change follows the repository's contribution guidelines: https://github.com/octo/repo/blob/main/CONTRIBUTING.md",
    );
  });

  it('refuses an issue number that is not one', () => {
    for (const issue of [0, -3, 1.5, Number.NaN]) {
      let code: string | undefined;
      try {
        fixPullRequestBody({ issue, summary: 'Fix.', disclosure, contributing: null });
      } catch (error) {
        code = error instanceof PullRequestError ? error.code : 'other';
      }
      expect(code, String(issue)).toBe('invalid-input');
    }
  });
});
