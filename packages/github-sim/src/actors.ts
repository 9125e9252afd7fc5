// The people and machines that make a live world move: CI that runs a pull request's tests and
// reports a check, maintainers who merge green pull requests after a while (or close some
// unmerged), issue authors who close some issues themselves; all decided by the seed so a
// scenario replays with the same outcomes.
import type { CheckConclusion, SimPull, SimRepo, WorldEvent, WorldReader, WorldWriter } from './world/model.js';
import { hash3, unit } from './world/random.js';

export interface ActorPlan {
  seed: number;
  /** How long a maintainer takes to act on a green pull request. */
  reviewDelayMs: number;
  /** Chance that a maintainer closes a green pull request instead of merging it. */
  closeUnmergedRate: number;
  /** Chance that an open issue is closed by its author (fixed elsewhere, or no longer wanted) when the actors start. */
  issueCloseRate?: number;
}

/** Runs a pull request's tests at its head commit and says how they went. */
export type ContinuousIntegration = (repo: SimRepo, pull: SimPull) => Promise<CheckConclusion>;

export interface ActorOptions {
  world: WorldReader & WorldWriter;
  ci: ContinuousIntegration;
  plan: ActorPlan;
  sleep?: (ms: number) => Promise<void>;
}

export interface ActorDecision {
  repo: string;
  number: number;
  action: 'checks' | 'merged' | 'closed-unmerged' | 'skipped' | 'failed' | 'issue-closed';
  detail: string;
}

const decisionStream = 0x6d61696e; // "main": the maintainers' coin
const authorStream = 0x61757468; // "auth": the issue authors' coin

/**
 * The actors work one reaction at a time, in the order the world's events happened: two pull
 * requests' CI runs never race, so the same events in the same order give the same outcomes. A
 * scenario that also acts on the world (a solver) keeps its own steps in order against `idle()`.
 */
export class Actors {
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;
  private readonly decisions: ActorDecision[] = [];
  private unsubscribe: (() => void) | null = null;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: ActorOptions) {
    this.sleep = options.sleep ?? ((ms) => new Promise((done) => setTimeout(done, ms)));
  }

  /**
   * Subscribes to the world, and first takes up the open pull requests it left undone: those with no checks yet, and
   * green ones no maintainer has decided (a world resumed after a restart).
   */
  start(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.options.world.onEvent((event) => this.react(event));
    const { world } = this.options;
    for (let index = 0; index < world.repoCount(); index += 1) {
      const repo = world.repoAt(index);
      if (!repo) continue;
      for (const pull of world.pulls(repo, { states: ['OPEN'] }, 0, Number.MAX_SAFE_INTEGER).items) {
        if (pull.checks === null) this.enqueue(() => this.runChecks(repo.id, pull.number));
        else if (pull.checks === 'SUCCESS') this.enqueue(() => this.review(repo.id, pull.number, pull.headRefOid));
      }
      const closeRate = this.options.plan.issueCloseRate ?? 0;
      for (const issue of closeRate > 0
        ? world.issues(repo, { states: ['OPEN'] }, 0, Number.MAX_SAFE_INTEGER).items
        : []) {
        if (unit(hash3(this.options.plan.seed ^ authorStream, repo.id, issue.number)) >= closeRate) continue;
        this.enqueue(() => {
          // Issues that turn out not to need a change close as not planned; the rest were fixed some other way.
          const reason = issue.kind === 'question' || issue.kind === 'feature-debate' ? 'NOT_PLANNED' : 'COMPLETED';
          world.closeIssue(repo, issue.number, reason);
          this.record(repo, issue.number, 'issue-closed', `by ${issue.authorLogin} as ${reason}`);
          return Promise.resolve();
        });
      }
    }
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** Resolves when every reaction queued so far (and those they caused) has finished. */
  async idle(): Promise<void> {
    while (this.queued > 0) await this.queue;
  }

  /** What the actors did, in order: the scenario's outcome, comparable across runs. */
  log(): readonly ActorDecision[] {
    return this.decisions;
  }

  private react(event: WorldEvent): void {
    if (
      event.type === 'pull_request' &&
      (event.action === 'opened' || event.action === 'synchronize' || event.action === 'reopened')
    ) {
      this.enqueue(() => this.runChecks(event.repoId, event.number));
    } else if (event.type === 'check_run' && event.conclusion === 'SUCCESS') {
      this.enqueue(() => this.review(event.repoId, event.number, event.headOid));
    }
  }

  private enqueue(work: () => Promise<void>): void {
    this.queued += 1;
    this.queue = this.queue
      .then(work)
      .catch((error: unknown) => {
        this.decisions.push({
          repo: '?',
          number: 0,
          action: 'failed',
          detail: error instanceof Error ? error.message : String(error),
        });
      })
      .finally(() => {
        this.queued -= 1;
      });
  }

  private lookup(repoId: number, number: number): { repo: SimRepo; pull: SimPull } | null {
    const repo = this.options.world.repoById(repoId);
    const pull = repo ? this.options.world.pull(repo, number) : undefined;
    return repo && pull ? { repo, pull } : null;
  }

  private async runChecks(repoId: number, number: number): Promise<void> {
    const found = this.lookup(repoId, number);
    if (!found || found.pull.state !== 'OPEN') return;
    const conclusion = await this.options.ci(found.repo, found.pull);
    // A push may have moved the head while the tests ran: that run's verdict belongs to an old commit.
    const now = this.lookup(repoId, number);
    if (!now || now.pull.headRefOid !== found.pull.headRefOid || now.pull.state !== 'OPEN') return;
    this.options.world.setChecks(found.repo, number, conclusion);
    this.record(found.repo, number, 'checks', `${conclusion} at ${found.pull.headRefOid.slice(0, 12)}`);
  }

  private async review(repoId: number, number: number, headOid: string): Promise<void> {
    await this.sleep(this.options.plan.reviewDelayMs);
    const found = this.lookup(repoId, number);
    if (!found) return;
    const { repo, pull } = found;
    if (pull.state !== 'OPEN' || pull.headRefOid !== headOid || pull.checks !== 'SUCCESS') {
      this.record(repo, number, 'skipped', `no longer open and green at ${headOid.slice(0, 12)}`);
      return;
    }
    const maintainer = this.maintainerOf(repo);
    if (unit(hash3(this.options.plan.seed ^ decisionStream, repoId, number)) < this.options.plan.closeUnmergedRate) {
      this.options.world.closePull(repo, number);
      this.record(repo, number, 'closed-unmerged', `by ${maintainer}`);
      return;
    }
    this.options.world.mergePull(repo, number, maintainer);
    this.record(repo, number, 'merged', `by ${maintainer}`);
  }

  private maintainerOf(repo: SimRepo): string {
    // The repository's owner maintains it; a world may name other maintainers through users' maintainerOf.
    return this.options.world.userByLogin(repo.owner)?.login ?? repo.owner;
  }

  private record(repo: SimRepo, number: number, action: ActorDecision['action'], detail: string): void {
    this.decisions.push({ repo: `${repo.owner}/${repo.name}`, number, action, detail });
  }
}
