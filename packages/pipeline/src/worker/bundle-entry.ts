// Bundles the workflows and writes the bundle as JSON to the file named on the command line: run as its own process by
// `bundleWorkflowsApart`, so webpack's memory goes with that process instead of staying in the long-lived worker.
import { writeFile } from 'node:fs/promises';
import { bundleWorkflows } from './worker.js';

const out = process.argv[2];
if (out === undefined) throw new Error('usage: bundle-entry.ts <output.json>');
await writeFile(out, JSON.stringify(await bundleWorkflows()));
