import { describe, expect, it } from 'vitest';
import { simulatedRun } from './run-rule.js';

const durations = { 'registry.example.com/ml/': 300, 'registry.example.com/ml/train:2': 3600 };

describe('simulatedRun', () => {
  const rows: {
    name: string;
    image: string;
    args?: string[];
    command?: string[];
    annotations?: Record<string, string>;
    want: object;
  }[] = [
    {
      name: 'the run-seconds annotation wins over the image (the form example specs use)',
      image: 'registry.example.com/ml/train:2',
      annotations: { 'sim.gpuops.dev/run-seconds': '1500' },
      want: { durationSeconds: 1500, exitCode: 0, reason: 'Completed' },
    },
    {
      name: 'the run-seconds annotation wins over --sim-duration',
      image: 'x',
      args: ['--sim-duration=7'],
      annotations: { 'sim.gpuops.dev/run-seconds': '45.5' },
      want: { durationSeconds: 45.5 },
    },
    {
      name: 'other annotations leave the image rule in force',
      image: 'registry.example.com/ml/infer:1',
      annotations: { 'sidecar.istio.io/inject': 'false' },
      want: { durationSeconds: 300 },
    },
    {
      name: 'a run-seconds annotation that is not a number fails at once, naming it',
      image: 'x',
      annotations: { 'sim.gpuops.dev/run-seconds': '45s' },
      want: {
        exitCode: 2,
        reason: 'Error',
        terminationMessage: expect.stringContaining('invalid annotation sim.gpuops.dev/run-seconds: "45s"'),
      },
    },
    {
      name: 'exact image wins over a prefix',
      image: 'registry.example.com/ml/train:2',
      want: { durationSeconds: 3600, exitCode: 0, reason: 'Completed' },
    },
    {
      name: 'longest matching prefix',
      image: 'registry.example.com/ml/infer:1',
      want: { durationSeconds: 300 },
    },
    { name: 'default when nothing matches', image: 'docker.io/x:1', want: { durationSeconds: 60 } },
    {
      name: '--sim-duration in args wins over the image',
      image: 'registry.example.com/ml/train:2',
      args: ['--sim-duration=12.5'],
      want: { durationSeconds: 12.5 },
    },
    {
      name: '--sim-duration in command counts too',
      image: 'x',
      command: ['python', 'b.py', '--sim-duration=7'],
      want: { durationSeconds: 7 },
    },
    {
      name: '--sim-fail exits 1 with Error',
      image: 'x',
      args: ['--sim-fail'],
      want: { exitCode: 1, reason: 'Error' },
    },
    { name: '--sim-fail=CODE', image: 'x', args: ['--sim-fail=137'], want: { exitCode: 137 } },
    {
      name: 'termination message with the run time',
      image: 'x',
      args: ['--sim-duration=9', '--sim-termination-message'],
      want: { terminationMessage: '{"durationSeconds":9}' },
    },
    {
      name: 'termination message with a chosen figure',
      image: 'x',
      args: ['--sim-termination-message=41'],
      want: { durationSeconds: 60, terminationMessage: '{"durationSeconds":41}' },
    },
    {
      name: 'malformed duration fails at once, naming the argument',
      image: 'x',
      args: ['--sim-duration=ten'],
      want: {
        durationSeconds: 0,
        exitCode: 2,
        terminationMessage: expect.stringContaining('"--sim-duration=ten"'),
      },
    },
    { name: 'unknown --sim- flag fails', image: 'x', args: ['--sim-speed=2'], want: { exitCode: 2 } },
    {
      name: '--sim-oom: exit 137, OOMKilled',
      image: 'x',
      args: ['--sim-oom'],
      want: { exitCode: 137, reason: 'OOMKilled' },
    },
    {
      name: '--sim-waiting=ImagePullBackOff: never starts, with the kubelet message naming the image',
      image: 'r.example/a:1',
      args: ['--sim-waiting=ImagePullBackOff'],
      want: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "r.example/a:1"' } },
    },
    {
      name: '--sim-waiting without a reason fails',
      image: 'x',
      args: ['--sim-waiting'],
      want: { exitCode: 2 },
    },
    {
      name: '--sim-waiting=bad-reason fails',
      image: 'x',
      args: ['--sim-waiting=a-b'],
      want: { exitCode: 2 },
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      expect(
        simulatedRun(
          { image: row.image, args: row.args, command: row.command },
          durations,
          60,
          row.annotations,
        ),
      ).toMatchObject(row.want);
    });
  }
});
