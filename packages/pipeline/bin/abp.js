#!/usr/bin/env node
// The `abp` command, compiled: `npm run build` (tsc -b) writes dist/.
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
