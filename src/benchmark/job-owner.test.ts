/**
 * The rule that decides whether a benchmark Job under gpuops's name is gpuops's (`judgeJob`): its
 * marks first, then its `metadata.uid` against the one recorded at gpuops's create, and a Job with
 * no record only when it was created before gpuops began recording.
 */
import { describe, expect, it } from 'vitest';
import type { JobView } from '../cluster/jobs.js';
import { judgeJob, type RecordedJob } from './job-owner.js';

const want = { algorithm: 'resnet', specHash: 'a'.repeat(64), jobName: 'bench-resnet-aaaaaaaaaaaa-1' };
const SINCE = new Date('2026-12-06T08:00:00.000Z');
const at = (offsetMs: number) => new Date(SINCE.getTime() + offsetMs);

function job(over: Partial<JobView> = {}): JobView {
  return {
    namespace: 'algorithms',
    name: want.jobName,
    conditions: [],
    active: 1,
    succeeded: 0,
    failed: 0,
    createdAt: at(60_000),
    labels: {
      'app.kubernetes.io/managed-by': 'gpuops',
      'gpuops.dev/algorithm': want.algorithm,
      'gpuops.dev/benchmark-job': want.jobName,
    },
    annotations: { 'gpuops.dev/spec-hash': want.specHash },
    uid: 'uid-gpuops',
    ...over,
  };
}
const rec = (uid: string | null, since: Date | null = SINCE): RecordedJob => ({ uid, recordingSince: since });

describe('judgeJob', () => {
  it.each([
    ['recorded uid, same uid', job(), rec('uid-gpuops'), { kind: 'follow', adopt: false }],
    [
      'recorded uid, another uid (deleted and made again)',
      job({ uid: 'uid-tenant' }),
      rec('uid-gpuops'),
      { kind: 'refuse', why: 'metadata.uid is "uid-tenant", gpuops created "uid-gpuops"' },
    ],
    [
      'recorded uid, Job read without a uid',
      job({ uid: undefined }),
      rec('uid-gpuops'),
      { kind: 'refuse', why: 'metadata.uid is missing, gpuops created "uid-gpuops"' },
    ],
    [
      'no record, created in the whole second before recording began: adopted',
      job({ createdAt: at(-1000) }),
      rec(null),
      { kind: 'follow', adopt: true },
    ],
    [
      'no record, created 1 ms before recording began (its second not over, creationTimestamp has whole seconds): refused',
      job({ createdAt: at(-1) }),
      rec(null),
      {
        kind: 'refuse',
        why: 'metadata.uid "uid-gpuops" is not one gpuops recorded: gpuops records every Job it creates since 2026-12-06T08:00:00.000Z, and this one was created at 2026-12-06T07:59:59.999Z',
      },
    ],
    [
      'no record, created when recording began: refused',
      job({ createdAt: at(0) }),
      rec(null),
      {
        kind: 'refuse',
        why: 'metadata.uid "uid-gpuops" is not one gpuops recorded: gpuops records every Job it creates since 2026-12-06T08:00:00.000Z, and this one was created at 2026-12-06T08:00:00.000Z',
      },
    ],
    [
      'no record, created after recording began (made first by someone else): refused',
      job({ uid: 'uid-tenant' }),
      rec(null),
      {
        kind: 'refuse',
        why: 'metadata.uid "uid-tenant" is not one gpuops recorded: gpuops records every Job it creates since 2026-12-06T08:00:00.000Z, and this one was created at 2026-12-06T08:01:00.000Z',
      },
    ],
    [
      'no record, age unknown: refused',
      job({ createdAt: null }),
      rec(null),
      {
        kind: 'refuse',
        why: 'metadata.uid "uid-gpuops" is not one gpuops recorded: gpuops records every Job it creates since 2026-12-06T08:00:00.000Z, and this one was created at an unknown time',
      },
    ],
    [
      'no record, recording start unknown: refused',
      job({ createdAt: at(-60_000) }),
      rec(null, null),
      {
        kind: 'refuse',
        why: 'metadata.uid "uid-gpuops" is not one gpuops recorded: gpuops records every Job it creates, and this one was created at 2026-12-06T07:59:00.000Z',
      },
    ],
    [
      'no record, old but without a uid: refused (nothing to record)',
      job({ createdAt: at(-60_000), uid: undefined }),
      rec(null),
      { kind: 'refuse' },
    ],
    [
      'a store that keeps no uids: marks decide',
      job({ uid: 'uid-any' }),
      null,
      { kind: 'follow', adopt: false },
    ],
    [
      'marks come first: right uid, spec hash of another spec',
      job({ annotations: { 'gpuops.dev/spec-hash': 'b'.repeat(64) } }),
      rec('uid-gpuops'),
      {
        kind: 'refuse',
        why: `annotation gpuops.dev/spec-hash is "${'b'.repeat(64)}", gpuops writes "${want.specHash}"`,
      },
    ],
    [
      'marks come first: an old Job without the managed-by label is never adopted',
      job({ createdAt: at(-60_000), labels: { 'gpuops.dev/algorithm': 'resnet' } }),
      rec(null),
      { kind: 'refuse', why: 'label app.kubernetes.io/managed-by is missing, gpuops writes "gpuops"' },
    ],
  ])('%s', (_name, j, recorded, verdict) => {
    expect(judgeJob(j, want, recorded)).toMatchObject(verdict);
  });
});
