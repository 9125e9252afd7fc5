// The trial matrix of a run and the order trials start in. ABBA counterbalances drift (API latency, cache warmth, load)
// between engines: rounds alternate the engine order forward and reversed, continuing across tasks, so no engine always
// goes first. `shuffled` is a seeded Fisher-Yates permutation; `sequential` runs engine by engine.
import type { AbpRunConfig } from '@abp/protocol/schemas/abp-run';
import { createSeededRandom } from '../stats/index.js';

export interface ScheduledTrial {
  trialId: string;
  task: string;
  engine: string;
  /** Repetition index of this (task, engine) pair, from 0. */
  trial: number;
  /** Position in the schedule, from 0. */
  order: number;
}

/** "<task>--<engine>--t<n>": unique, stable across resumes, safe as a file name. */
export function trialIdOf(task: string, engine: string, trial: number): string {
  return `${task}--${engine}--t${trial}`;
}

/** The seed as the 32-bit generator takes it; seeds are published as given and reduced the same way everywhere. */
export function generatorSeed(seed: number): number {
  return seed % 2 ** 32;
}

export function scheduleTrials(
  config: Pick<AbpRunConfig, 'engines' | 'tasks' | 'trials' | 'ordering' | 'seed'>,
): ScheduledTrial[] {
  const engines = config.engines.map((engine) => engine.name);
  const cells: Array<Omit<ScheduledTrial, 'order' | 'trialId'>> = [];
  switch (config.ordering) {
    case 'abba': {
      let round = 0;
      for (const task of config.tasks) {
        for (let trial = 0; trial < config.trials; trial += 1, round += 1) {
          const order = round % 2 === 0 ? engines : [...engines].reverse();
          for (const engine of order) cells.push({ task, engine, trial });
        }
      }
      break;
    }
    case 'sequential':
      for (const engine of engines)
        for (const task of config.tasks)
          for (let trial = 0; trial < config.trials; trial += 1) cells.push({ task, engine, trial });
      break;
    case 'shuffled': {
      for (const task of config.tasks)
        for (let trial = 0; trial < config.trials; trial += 1)
          for (const engine of engines) cells.push({ task, engine, trial });
      const random = createSeededRandom(generatorSeed(config.seed));
      for (let index = cells.length - 1; index > 0; index -= 1) {
        const other = random.nextIndex(index + 1);
        [cells[index], cells[other]] = [cells[other] as (typeof cells)[number], cells[index] as (typeof cells)[number]];
      }
      break;
    }
  }
  return cells.map((cell, order) => ({ ...cell, order, trialId: trialIdOf(cell.task, cell.engine, cell.trial) }));
}
