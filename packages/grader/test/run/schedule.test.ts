import { describe, expect, it } from 'vitest';
import { scheduleTrials } from '../../src/run/schedule.js';

const config = (engines: string[], ordering: 'abba' | 'shuffled' | 'sequential', tasks = ['t1', 't2'], trials = 2) => ({
  engines: engines.map((name) => ({ name, version: '1' })),
  tasks,
  trials,
  ordering,
  seed: 7,
});
const order = (trials: ReturnType<typeof scheduleTrials>) =>
  trials.map((trial) => `${trial.task}:${trial.engine}:${trial.trial}`);

describe('scheduleTrials', () => {
  it('alternates engine order ABBA across rounds, continuing across tasks', () => {
    expect(order(scheduleTrials(config(['a', 'b'], 'abba')))).toEqual([
      't1:a:0',
      't1:b:0',
      't1:b:1',
      't1:a:1',
      't2:a:0',
      't2:b:0',
      't2:b:1',
      't2:a:1',
    ]);
  });

  it('generalizes ABBA to more engines as forward then reversed rounds', () => {
    expect(order(scheduleTrials(config(['a', 'b', 'c'], 'abba', ['t'], 2)))).toEqual([
      't:a:0',
      't:b:0',
      't:c:0',
      't:c:1',
      't:b:1',
      't:a:1',
    ]);
  });

  it('gives every engine first place equally often under ABBA', () => {
    const trials = scheduleTrials(config(['a', 'b'], 'abba', ['t1', 't2', 't3'], 4));
    const firsts = trials.filter((_, index) => index % 2 === 0).map((trial) => trial.engine);
    expect(firsts.filter((engine) => engine === 'a')).toHaveLength(firsts.length / 2);
  });

  it('runs engine by engine when sequential', () => {
    expect(order(scheduleTrials(config(['a', 'b'], 'sequential', ['t'], 2)))).toEqual([
      't:a:0',
      't:a:1',
      't:b:0',
      't:b:1',
    ]);
  });

  it('shuffles as a seeded permutation of the same matrix', () => {
    const shuffled = scheduleTrials(config(['a', 'b'], 'shuffled'));
    expect(order(scheduleTrials(config(['a', 'b'], 'shuffled')))).toEqual(order(shuffled));
    expect(order(shuffled).sort()).toEqual(order(scheduleTrials(config(['a', 'b'], 'sequential'))).sort());
    expect(order(shuffled)).not.toEqual(order(scheduleTrials({ ...config(['a', 'b'], 'shuffled'), seed: 8 })));
  });

  it('numbers positions and names trials uniquely and stably', () => {
    const trials = scheduleTrials(config(['a', 'b'], 'abba'));
    expect(trials.map((trial) => trial.order)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(new Set(trials.map((trial) => trial.trialId)).size).toBe(trials.length);
    expect(trials[0]?.trialId).toBe('t1--a--t0');
  });
});
