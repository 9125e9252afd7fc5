// What the main job tells whoever watches it: one event when a stage starts, counts while a long step runs, notes worth
// a line, and one event when the stage ends or fails. cli/progress.ts turns them into a live line on a terminal, plain
// lines elsewhere, or JSON objects (`--json`); the pipeline itself never prints.

/** The stages of `abp start`, in the order they run. */
export const STAGES = ['stack', 'rotation', 'draw', 'solve', 'merge', 'freeze', 'pull', 'grade', 'gate'] as const;
export type StageName = (typeof STAGES)[number];

export const stageTitles: Record<StageName, string> = {
  stack: 'start the stack (signing key, abp serve, simulator, Temporal, worker)',
  rotation: 'rotate the registry for the current quarter',
  draw: 'draw tasks from the registry backlog with the seed',
  solve: 'open the reference fixes upstream and hand them to their tasks',
  merge: 'wait for CI and the maintainers',
  freeze: 'wait for the merged tasks to freeze into signed bundles',
  pull: 'pull the scored tasks from abp serve, verified against the pinned trust root',
  grade: 'grade the reference engine against the no-op engine',
  gate: 'gate the run against the baseline',
};

export type PipelineEvent =
  | { event: 'stage-started'; stage: StageName; title: string; at: string }
  /** A long step's count: `done` of `total` `unit` (total null when not known yet); `label` says what is in flight. */
  | {
      event: 'stage-progress';
      stage: StageName;
      done: number;
      total: number | null;
      unit: string;
      label: string | null;
    }
  | { event: 'note'; stage: StageName; message: string }
  | { event: 'stage-done'; stage: StageName; ms: number; summary: string }
  /** `log` is the file to read for the cause (worker, simulator or serve log), when one would help. */
  | { event: 'stage-failed'; stage: StageName; ms: number; reason: string; log: string | null }
  | { event: 'summary'; summary: unknown };

export type ProgressSink = (event: PipelineEvent) => void;
