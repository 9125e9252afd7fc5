#!/usr/bin/env node
// The `abp` command. The sources are TypeScript run through tsx's loader, so there is no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
