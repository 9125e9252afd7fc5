#!/usr/bin/env node
// Runs one TypeScript script of this repository (scripts/, bench/) through tsx's loader, with the workspace packages
// resolved to their sources (the "source" export condition), so a script never runs a stale build.
import { register } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { register as registerTsx } from 'tsx/esm/api';

const [script, ...rest] = process.argv.slice(2);
if (!script) {
  console.error('usage: node bin/run-ts.js <script.ts> [args…]');
  process.exit(2);
}
registerTsx();
// Registered after tsx, so it runs first: every resolution also matches the packages' "source" condition.
register(
  'data:text/javascript,export const resolve = (specifier, context, next) => next(specifier, { ...context, conditions: [...context.conditions, "source"] });',
);
process.argv = [process.argv[0], resolve(script), ...rest];
await import(pathToFileURL(resolve(script)).href);
