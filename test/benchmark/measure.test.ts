import { describe, expect, it } from 'vitest';
import { durationFromMessage, measureContainer } from '../../src/benchmark/measure.js';
import type { ContainerView } from '../../src/cluster/jobs.js';

function container(o: Partial<ContainerView>): ContainerView {
  return {
    name: 'benchmark',
    state: 'terminated',
    reason: 'Completed',
    startedAt: new Date('2025-01-01T00:00:10Z'),
    finishedAt: new Date('2025-01-01T00:01:40Z'),
    exitCode: 0,
    message: null,
    image: null,
    ...o,
  };
}

describe('measureContainer', () => {
  it.each([
    {
      name: 'no message: finishedAt − startedAt',
      c: {},
      want: { seconds: 90, source: 'container-timestamps' },
    },
    {
      name: 'termination message wins over timestamps',
      c: { message: '{"durationSeconds": 42.5}' },
      want: { seconds: 42.5, source: 'termination-message' },
    },
    {
      name: 'message with a log tail before the JSON line',
      c: { message: 'warming up\n{"durationSeconds": 12}\n' },
      want: { seconds: 12, source: 'termination-message' },
    },
    {
      name: 'negative duration in the message is ignored',
      c: { message: '{"durationSeconds": -3}' },
      want: { seconds: 90, source: 'container-timestamps' },
    },
    {
      name: 'non-numeric duration in the message is ignored',
      c: { message: '{"durationSeconds": "12"}' },
      want: { seconds: 90, source: 'container-timestamps' },
    },
  ])('$name', ({ c, want }) => expect(measureContainer(container(c))).toEqual(want));

  it('returns null without message and timestamps', () => {
    expect(measureContainer(container({ startedAt: null }))).toBeNull();
  });

  it('returns null when finishedAt is before startedAt', () => {
    expect(measureContainer(container({ finishedAt: new Date('2025-01-01T00:00:00Z') }))).toBeNull();
  });

  it('plain log text is no duration', () => expect(durationFromMessage('Traceback: boom')).toBeNull());
});
