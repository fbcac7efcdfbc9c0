/**
 * Labels are best effort on every host: a pull request without its labels is still the change,
 * so a label the host refuses never fails it. After a `permission` refusal (a token that may open
 * pull requests but not create labels), or labels the host silently left off (GitLab, for an
 * account that may not create them), the host adds no more labels for its lifetime — the token's
 * permissions do not change between passes, and asking again each pass would write on every pass;
 * a restart tries again — and says so each time.
 */
import { PrHostError } from './pr-host.js';
import type { GitOpsLogger } from '../change-sets/index.js';

/** The refusals of one host's labels, and the warnings they become. */
export class LabelGuard {
  private refused: string | null = null;
  /** `sigil`: how the host writes a pull request's number (`#` on GitHub and Gitea, `!` on GitLab). */
  constructor(
    private readonly sigil: string,
    private readonly log?: GitOpsLogger,
  ) {}

  /**
   * Runs `add` (which returns the labels the host left off without an error) unless labels were
   * refused before. @returns `{ warnings }` when a label is missing, else `{}`; never throws
   */
  async add(
    number: number,
    labels: readonly string[],
    add: () => Promise<readonly string[]>,
  ): Promise<{ warnings?: string[] }> {
    if (labels.length === 0) return {};
    const names = labels.join(', ');
    const on = `${this.sigil}${number}`;
    if (this.refused !== null) return { warnings: [`labels ${names} not added to ${on}: ${this.refused}`] };
    try {
      const missing = await add();
      if (missing.length === 0) return {};
      const why = 'the host left them off (the token may not create labels in this repository)';
      this.refused = `${why} (not tried again until restart)`;
      this.log?.warn({ number, labels: missing }, 'Labels left off; pull request kept');
      return { warnings: [`labels ${missing.join(', ')} not added to ${on}: ${why}`] };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof PrHostError && err.kind === 'permission')
        this.refused = `${message} (not tried again until restart)`;
      this.log?.warn({ number, labels, err: message }, 'Could not add labels; pull request kept');
      return { warnings: [`labels ${names} not added to ${on}: ${message}`] };
    }
  }
}
