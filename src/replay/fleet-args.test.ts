import { describe, expect, it } from 'vitest';
import { DEFAULT_FLEET, DEFAULT_POD_GROUPS, replayPlan } from './fleet-args.js';

const T = ['--trace', 'pods.csv'];

describe('replayPlan: what npm run replay runs', () => {
  it.each([
    ['no flags: both, the fleet with the trace', [...T], [...T], [...T, ...DEFAULT_FLEET]],
    [
      'the synthetic day (a clone without the trace): both, the fleet with the same day',
      ['--synthetic=1', '--hours', '2'],
      ['--synthetic=1', '--hours', '2'],
      ['--synthetic', '1', '--hours', '2', ...DEFAULT_FLEET],
    ],
    [
      'the slice and thresholds go to both; one-service flags stay with the one service',
      [
        ...T,
        '--hours',
        '2',
        '--work-dir',
        'w',
        '--merge-delay-seconds',
        '60',
        '--min',
        '25',
        '--from-hours=3',
      ],
      [
        ...T,
        '--hours',
        '2',
        '--work-dir',
        'w',
        '--merge-delay-seconds',
        '60',
        '--min',
        '25',
        '--from-hours=3',
      ],
      [...T, '--hours', '2', '--min', '25', '--from-hours', '3', ...DEFAULT_FLEET],
    ],
    [
      'the report of the fleet goes into a folder of its own',
      [...T, '--report', 'out/'],
      [...T, '--report', 'out/'],
      [...T, '--report', 'out/fleet', ...DEFAULT_FLEET],
    ],
    [
      "a standby claim's seconds go to the fleets",
      [...T, '--claim-seconds', '20'],
      [...T, '--claim-seconds', '20'],
      [...T, '--claim-seconds', '20', ...DEFAULT_FLEET],
    ],
    ['--no-fleet: the one service alone', [...T, '--no-fleet'], [...T], null],
    [
      '--engines: that subset alone',
      [...T, '--engines', 'static,ideal'],
      [...T, '--engines', 'static,ideal'],
      null,
    ],
    ['--services: that fleet alone', [...T, '--services', '8'], null, [...T, '--services', '8']],
    ['--group-by=…: that fleet alone', [...T, '--group-by=namespace'], null, [...T, '--group-by=namespace']],
    ['--pod-groups: that fleet alone', [...T, '--pod-groups', '3'], null, [...T, '--pod-groups', '3']],
    [
      '--nodes with --no-fleet: the fleet alone, --no-fleet dropped',
      [...T, '--services', '2', '--nodes', 'auto', '--no-fleet'],
      null,
      [...T, '--services', '2', '--nodes', 'auto'],
    ],
    [
      'a value is never a flag: a trace named --services is still one service',
      ['--trace', '--services', '--policy', 'p.yaml'],
      ['--trace', '--services', '--policy', 'p.yaml'],
      ['--trace', '--services', '--policy', 'p.yaml', ...DEFAULT_FLEET],
    ],
  ])('%s', (_, args, one, fleet) => {
    // The default plan replays the disjoint pod groups after the shifted copies, with the same
    // shared flags and a report folder of their own; a fleet asked for runs alone.
    const isDefault = fleet !== null && fleet.slice(-4).join(' ') === DEFAULT_FLEET.join(' ');
    const podGroups = isDefault
      ? [...fleet.slice(0, -4).map((a) => (a === 'out/fleet' ? 'out/pod-groups' : a)), ...DEFAULT_POD_GROUPS]
      : null;
    expect(replayPlan(args)).toEqual({ one, fleet, podGroups });
  });
});
