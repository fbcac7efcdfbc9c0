import { describe, expect, it } from 'vitest';
import {
  failedCondition,
  fillFailureText,
  heldByFailedFills,
  newFillFailures,
  recordedFillFailures,
  type FillFailure,
} from './fill-failure.js';

const cond = (type: string, status: string, reason: string | null = null, message: string | null = null) => ({
  type,
  status,
  reason,
  message,
});

describe('failedCondition: the Job controller’s Failed condition, status True only', () => {
  it.each([
    ['no conditions (running)', [], null],
    ['Complete', [cond('Complete', 'True')], null],
    ['Failed False', [cond('Failed', 'False', 'BackoffLimitExceeded')], null],
    [
      'FailureTarget only (pods still terminating)',
      [cond('FailureTarget', 'True', 'BackoffLimitExceeded')],
      null,
    ],
    [
      'FailureTarget then Failed',
      [
        cond('FailureTarget', 'True', 'BackoffLimitExceeded', 'x'),
        cond('Failed', 'True', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'),
      ],
      { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' },
    ],
    ['Failed without reason', [cond('Failed', 'True')], { reason: null, message: null }],
  ])('%s', (_what, conditions, want) => {
    expect(failedCondition(conditions)).toEqual(want);
  });
});

describe('fillFailureText: the reason and message a person reads', () => {
  it.each([
    [
      'BackoffLimitExceeded',
      'Job has reached the specified backoff limit',
      'BackoffLimitExceeded: Job has reached the specified backoff limit',
    ],
    ['DeadlineExceeded', null, 'DeadlineExceeded'],
    [null, 'killed', 'killed'],
    [null, null, 'no reason given'],
    ['  ', '', 'no reason given'],
  ])('%s / %s → %s', (reason, message, want) => {
    expect(fillFailureText({ reason, message })).toBe(want);
  });
});

describe('newFillFailures: once per failed Job name per process', () => {
  const f = (job: string): FillFailure => ({
    namespace: 'algorithms',
    algorithm: 'bert',
    job,
    reason: 'BackoffLimitExceeded',
    message: null,
  });
  it('warns a Job the first time, never again; a new Job name (a changed fill step) is new', () => {
    const warned = new Set<string>();
    expect(newFillFailures([f('algorithms/bert-fill-a')], warned).map((x) => x.job)).toEqual([
      'algorithms/bert-fill-a',
    ]);
    expect(newFillFailures([f('algorithms/bert-fill-a')], warned)).toEqual([]);
    expect(
      newFillFailures([f('algorithms/bert-fill-a'), f('algorithms/bert-fill-b')], warned).map((x) => x.job),
    ).toEqual(['algorithms/bert-fill-b']);
  });
});

describe('heldByFailedFills: what the status page says, by algorithm', () => {
  it('names the Job, why, and how to retry', () => {
    const failure: FillFailure = {
      namespace: 'algorithms',
      algorithm: 'bert',
      job: 'algorithms/bert-model-cache-1a2b3c4d',
      reason: 'BackoffLimitExceeded',
      message: 'Job has reached the specified backoff limit',
    };
    expect(Object.fromEntries(heldByFailedFills([failure]))).toEqual({
      bert: {
        reason: 'ModelCacheFillFailed',
        message:
          'fill Job algorithms/bert-model-cache-1a2b3c4d failed (BackoffLimitExceeded: Job has reached the specified backoff limit); the Deployment is held until the fill step changes or the Job is deleted',
      },
    });
    expect(heldByFailedFills([])).toEqual(new Map());
  });
});

describe('recordedFillFailures: the failures the stored fleet status already says (a restart warns none again)', () => {
  const failure = (algorithm: string, job: string, reason = 'BackoffLimitExceeded'): FillFailure => ({
    namespace: 'algorithms',
    algorithm,
    job,
    reason,
    message: 'Job has reached the specified backoff limit',
  });
  const bert = failure('bert', 'algorithms/bert-model-cache-1a2b3c4d');
  /** The fleet status's entry a pass that saw `f` stored (`heldByFailedFills`). */
  const entry = (f: FillFailure) => ({ name: f.algorithm, held: heldByFailedFills([f]).get(f.algorithm)! });
  it.each([
    ['recorded as it is now', [entry(bert)], ['algorithms/bert-model-cache-1a2b3c4d']],
    ['no record of the algorithm', [{ name: 'other', held: entry(bert).held }], []],
    ['the algorithm not held', [{ name: 'bert' }], []],
    [
      'another Job (the fill step changed)',
      [entry(failure('bert', 'algorithms/bert-model-cache-99999999'))],
      [],
    ],
    ['the same Job failed another way', [entry(failure('bert', bert.job, 'DeadlineExceeded'))], []],
    [
      'held for another cause',
      [{ name: 'bert', held: { reason: 'ModelCacheFillNotListed', message: entry(bert).held.message } }],
      [],
    ],
  ])('%s', (_what, algorithms, want) => {
    expect(recordedFillFailures([bert], algorithms)).toEqual(want);
  });

  it('each failure by its own algorithm: one recorded, one new', () => {
    const gpt = failure('gpt', 'algorithms/gpt-model-cache-0f0f0f0f');
    expect(recordedFillFailures([bert, gpt], [entry(gpt), { name: 'bert' }])).toEqual([gpt.job]);
  });
});
