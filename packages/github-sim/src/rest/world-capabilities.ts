// What a world can do beyond WorldReader, decided in one place. A live world takes writes
// (WorldWriter), keeps its repositories in bare git repositories, knows which fork a pull
// request's head comes from and logs its events; a scale world does none of that, and the REST
// routes that need it answer as GitHub does when a repository cannot serve them.
import { isWorldWriter, type SimRepo, type WorldEvent, type WorldReader, type WorldWriter } from '../world/model.js';

/** A world whose repositories are real git repositories on disk (LiveWorld). */
export interface GitBackedWorld {
  gitPathOf(repo: Pick<SimRepo, 'id'>): string;
}

/** A world that knows where a pull request's head lives (GitHub's `head.repo`, a fork). */
export interface PullHeadWorld {
  headOf(repo: SimRepo, number: number): { repo: SimRepo | null; branch: string } | undefined;
}

/** A world that keeps every event in order (the check times the REST layer reports). */
export interface EventLogWorld {
  eventLog(): readonly WorldEvent[];
}

function has<K extends string>(
  world: WorldReader,
  method: K,
): world is WorldReader & Record<K, (...args: never[]) => unknown> {
  return typeof (world as unknown as Record<string, unknown>)[method] === 'function';
}

/** The world as a writer, or null for a read-only (scale) world. */
export function writerOf(world: WorldReader): (WorldReader & WorldWriter) | null {
  return isWorldWriter(world) ? world : null;
}

export function gitOf(world: WorldReader): GitBackedWorld | null {
  return has(world, 'gitPathOf') ? (world as WorldReader & GitBackedWorld) : null;
}

export function pullHeadsOf(world: WorldReader): PullHeadWorld | null {
  return has(world, 'headOf') ? (world as WorldReader & PullHeadWorld) : null;
}

export function eventLogOf(world: WorldReader): EventLogWorld | null {
  return has(world, 'eventLog') ? (world as WorldReader & EventLogWorld) : null;
}

/** Where a pull request's head lives: the fork it came from, or the repository itself. */
export function pullHead(
  world: WorldReader,
  repo: SimRepo,
  number: number,
  headRefName: string,
): { repo: SimRepo | null; branch: string } {
  return pullHeadsOf(world)?.headOf(repo, number) ?? { repo, branch: headRefName };
}
