// A registry entry's runner as the freeze's recipe: install steps stay a list (each runs without a shell, so joining
// them with "&&" would be refused), and a suite given as several commands is refused with the fix.
import { describe, expect, it } from 'vitest';
import { FreezeError, recipeFor } from '../../src/freeze/index.js';
import { installSteps } from '../../src/registry/criteria/schema.js';

const entry = (install: string[], test: string[]) => ({
  language: 'python',
  install,
  test,
  reportFormat: 'junit-xml' as const,
});
const where = (runner: ReturnType<typeof entry>) => ({
  repo: 'octo/calc',
  gitDir: '/nonexistent',
  base: 'HEAD',
  entry: runner,
});

describe('recipeFor a registry entry', () => {
  it('keeps several install steps as a list, in order, and reads the runner from the test command', async () => {
    const recipe = await recipeFor(
      where(entry(['python3 -m venv .venv', '.venv/bin/pip install -e .[test]'], ['python3 -m pytest -q'])),
    );
    expect(recipe).toEqual({
      runner: 'pytest',
      ecosystem: 'python',
      install: ['python3 -m venv .venv', '.venv/bin/pip install -e .[test]'],
      test: 'python3 -m pytest -q',
      report: 'junit-xml',
    });
    expect(installSteps(recipe)).toEqual(['python3 -m venv .venv', '.venv/bin/pip install -e .[test]']);
    expect(installSteps({ install: 'npm ci' })).toEqual(['npm ci']);
  });

  it('refuses a suite of several commands, naming the field and where build steps go', async () => {
    const refused = await recipeFor(where(entry(['npm ci'], ['npm run build', 'npx vitest run']))).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(FreezeError);
    expect(refused).toMatchObject({ code: 'invalid-input' });
    expect((refused as Error).message).toMatch(
      /octo\/calc: the registry entry's runner\.test holds 2 commands.*runner\.install/,
    );
  });
});
