#!/usr/bin/env node
// Runs one TypeScript script of this repository (scripts/, bench/) through tsx's loader.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [script, ...rest] = process.argv.slice(2);
if (!script) {
  console.error('usage: node bin/run-ts.js <script.ts> [args…]');
  process.exit(2);
}
register();
process.argv = [process.argv[0], resolve(script), ...rest];
await import(pathToFileURL(resolve(script)).href);
