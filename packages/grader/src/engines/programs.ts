// Where the bundled engines' programs are: compiled JavaScript under dist/, run with the current node, so an adapter
// names them by path and a trial starts without a TypeScript loader.
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';

export const BUNDLED_ENGINES = ['reference', 'noop', 'scripted'] as const;
export type BundledEngine = (typeof BUNDLED_ENGINES)[number];

export function engineProgram(engine: BundledEngine): string {
  return join(packageRoot, 'dist', 'engines', `${engine}.js`);
}

/**
 * What an adapter's `program` lists for a bundled engine: the node that runs it and this package (its package.json
 * says the compiled files are ES modules), so the engine also starts inside a task's environment.
 */
export function engineProgramPaths(): string[] {
  return [process.execPath, packageRoot];
}
