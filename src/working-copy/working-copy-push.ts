/**
 * The write plumbing of the working copy (`working-copy.ts`): build commits without a working tree
 * (ONE `git fast-import` per pass) and push many refs in ONE `git push --porcelain`, each refspec
 * with its own lease. Reusable by the bench's plain-plumbing floor through `WorkingCopy`.
 */
import { GitOpsError, classifyGitError, parsePushPorcelain } from './git-errors.js';
import type { GitRunner } from './working-copy-git.js';
import type { CommitSpec } from './working-copy-options.js';

/**
 * Builds commits without a working tree: ONE `git fast-import` writes every blob, tree and
 * commit (each from its parent's tree plus the change set's files, authored by `git.author` at
 * `when`, whole seconds) and reports each commit's id. Returns the commit ids in order.
 * @throws GitOpsError when fast-import fails or reports fewer ids than specs
 */
export async function buildCommits(
  git: GitRunner,
  specs: readonly CommitSpec[],
  when: Date,
): Promise<string[]> {
  if (specs.length === 0) return [];
  const seconds = Math.floor(when.getTime() / 1000);
  const who = `${git.author.name} <${git.author.email}> ${seconds} +0000`;
  const parts: Buffer[] = [];
  const text = (s: string) => parts.push(Buffer.from(s, 'utf8'));
  const data = (s: string) => {
    const b = Buffer.from(s, 'utf8');
    text(`data ${b.length}\n`);
    parts.push(b);
    text('\n');
  };
  text('feature done\n');
  specs.forEach((spec, k) => {
    text(`commit refs/gpuops/staging\nmark :${k + 1}\nauthor ${who}\ncommitter ${who}\n`);
    data(spec.message);
    text(`from ${typeof spec.parent === 'string' ? spec.parent : `:${spec.parent.previous + 1}`}\n`);
    for (const f of spec.files) {
      if (f.content === null) text(`D ${f.path}\n`);
      else {
        text(`M 100644 inline ${f.path}\n`);
        data(f.content);
      }
    }
    text(`\nget-mark :${k + 1}\n`);
  });
  text('done\n');
  const out = await git.batch(
    'fast-import',
    ['fast-import', '--quiet', '--force', '--date-format=raw'],
    Buffer.concat(parts),
  );
  const ids = out
    .toString('utf8')
    .split('\n')
    .filter((l) => /^[0-9a-f]{40,64}$/.test(l));
  if (ids.length !== specs.length) {
    throw new GitOpsError('refused', 'fast-import', `expected ${specs.length} commit ids, got ${ids.length}`);
  }
  git.counters.commits += ids.length;
  return ids;
}

/** One ref to push: the commit for `refs/heads/<ref>` and the head the lease expects (null: must not exist). */
export interface PushRef {
  ref: string;
  sha: string;
  expected: string | null;
}

/**
 * What the push did to one ref: `true` it moved the ref to the commit, `'up-to-date'` the ref
 * already held that very commit so this push wrote nothing (git's `=` flag, git-push(1)
 * "OUTPUT"; gpuops builds commits deterministically, so two writers of the same change set on
 * the same head in the same second build the same id and the later one lands here), or the
 * rejection.
 */
export type RefPushResult = true | 'up-to-date' | GitOpsError;

/**
 * Pushes every `sha` to `refs/heads/<ref>` in ONE `git push --porcelain`, each refspec with its
 * own lease (`expected`, or empty: the branch must not exist). Returns per ref a
 * {@link RefPushResult} (a declined ref's message carries what the server's hooks said).
 * @throws GitOpsError when the push failed as a whole (network, auth) rather than per ref
 */
export async function pushRefs(
  git: GitRunner,
  refs: readonly PushRef[],
): Promise<Map<string, RefPushResult>> {
  const args = ['push', '--porcelain', '--no-verify'];
  for (const r of refs) args.push(`--force-with-lease=refs/heads/${r.ref}:${r.expected ?? ''}`);
  args.push('origin', ...refs.map((r) => `${r.sha}:refs/heads/${r.ref}`));
  git.beforePush();
  git.counters.pushes++;
  const res = await git.spawn('push', args, '');
  const stdout = res.stdout.toString('utf8');
  const lines = new Map(parsePushPorcelain(stdout).map((l) => [l.ref, l]));
  const out = new Map<string, RefPushResult>();
  const whole = git.redact(`${res.stderr}\n${stdout}`.trim());
  // What the server's hooks said (`remote: error: GH006: Protected branch update failed …`):
  // a declined ref's message carries it, so the reason of the refusal can be told.
  const said = remoteLines(res.stderr);
  for (const r of refs) {
    const line = lines.get(`refs/heads/${r.ref}`);
    if (line?.ok) out.set(r.ref, line.upToDate ? 'up-to-date' : true);
    else if (line)
      out.set(
        r.ref,
        new GitOpsError(
          line.kind!,
          'push',
          git.redact(`${r.ref}: ${line.summary}${/declined/i.test(line.summary) && said ? `: ${said}` : ''}`),
        ),
      );
    else if (res.code === 0) out.set(r.ref, true);
    else throw new GitOpsError(classifyGitError(whole), 'push', whole || `git exited with ${res.code}`);
  }
  return out;
}

/** The `remote: …` lines of git's stderr (what the server printed), joined with `; `; '' when none. */
function remoteLines(stderr: string): string {
  return stderr
    .split('\n')
    .map((l) => /^remote:\s*(.*\S)\s*$/.exec(l)?.[1])
    .filter((l): l is string => !!l)
    .join('; ');
}
