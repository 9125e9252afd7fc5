// `abp status`: the operators' view of one data directory and its stack: components, the latest registry version,
// draws, tasks by state, bundles, the transparency log, the rotation Schedule's next run and each task queue's workers
// and backlog. Read-only; a part whose source is absent or down says so and the rest still print (status/status.ts
// gathers, status/status-text.ts words it).
import { gatherStatus } from '../status/status.js';
import { statusLines } from '../status/status-text.js';
import { resolveStackConfig } from '../worker/config.js';
import { createOutput, type OutputOptions } from '@abp/grader/cli';

export async function statusCommand(options: OutputOptions): Promise<void> {
  const out = createOutput(options);
  const status = await gatherStatus({ config: resolveStackConfig() });
  for (const line of statusLines(status)) out.line(line);
  out.data(status);
}
