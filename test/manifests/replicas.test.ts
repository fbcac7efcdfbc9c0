/** setDeploymentReplicas row by row: each file shape it edits, each it refuses (with its message). */
import { describe, expect, it } from 'vitest';
import { setDeploymentReplicas } from '../../src/manifests/replicas.js';

const HEAD = 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: serve}\n';

describe('setDeploymentReplicas edits', () => {
  it.each([
    {
      name: 'a value written another way but equal stays byte for byte',
      spec: 'spec:\n  replicas: 0x3\n',
      replicas: 3,
      want: 'spec:\n  replicas: 0x3\n',
    },
    {
      name: 'a quoted count is a string, so it is replaced',
      spec: 'spec:\n  replicas: "3"\n',
      replicas: 3,
      want: 'spec:\n  replicas: 3\n',
    },
    {
      name: 'an empty value gets the count after one space',
      spec: 'spec:\n  replicas:\n  selector: {}\n',
      replicas: 2,
      want: 'spec:\n  replicas: 2\n  selector: {}\n',
    },
    {
      name: 'an empty value before a comment',
      spec: 'spec:\n  replicas: # set by gpuops\n  selector: {}\n',
      replicas: 2,
      want: 'spec:\n  replicas: 2 # set by gpuops\n  selector: {}\n',
    },
    {
      name: 'a missing count goes first, at four spaces like the other keys',
      spec: 'spec:\n    selector: {}\n',
      replicas: 0,
      want: 'spec:\n    replicas: 0\n    selector: {}\n',
    },
    {
      name: 'a missing count when spec is the first line of a document',
      spec: 'spec:\n  selector: {}\n',
      replicas: 5,
      want: 'spec:\n  replicas: 5\n  selector: {}\n',
    },
  ])('$name', ({ spec, replicas, want }) => {
    expect(setDeploymentReplicas(`${HEAD}${spec}`, replicas)).toBe(`${HEAD}${want}`);
  });

  it('with spec first in the file, inserts at the start of its first key line', () => {
    const text = 'spec:\n  selector: {}\nkind: Deployment\n';
    expect(setDeploymentReplicas(text, 1)).toBe('spec:\n  replicas: 1\n  selector: {}\nkind: Deployment\n');
  });

  it('skips a broken document that says Deployment and edits the valid one after it', () => {
    const broken = `${HEAD}spec:\n  replicas: 2\n  selector: [\n`;
    const good = `${HEAD}spec:\n  replicas: 2\n`;
    expect(() => setDeploymentReplicas(broken, 3)).toThrow('no valid kind: Deployment document');
    expect(setDeploymentReplicas(`${good}---\n${broken}`, 3)).toBe(
      `${HEAD}spec:\n  replicas: 3\n---\n${broken}`,
    );
  });
});

describe('setDeploymentReplicas refuses', () => {
  it.each([
    { name: 'an empty file', text: '', error: 'no valid kind: Deployment document' },
    {
      name: 'a file with no Deployment',
      text: 'kind: Service\nspec: {}\n',
      error: 'no valid kind: Deployment document',
    },
    {
      name: 'a flow-style spec',
      text: `${HEAD}spec: {replicas: 2}\n`,
      error: 'Deployment has no block-style spec map',
    },
    {
      name: 'a spec that is no map',
      text: `${HEAD}spec: 3\n`,
      error: 'Deployment has no block-style spec map',
    },
    { name: 'no spec', text: HEAD, error: 'Deployment has no block-style spec map' },
    {
      name: 'a count that is a list',
      text: `${HEAD}spec:\n  replicas: [1]\n`,
      error: 'spec.replicas is not a plain value',
    },
    {
      name: 'a spec whose first key is a list',
      text: `${HEAD}spec:\n  ? [a, b]\n  : 1\n`,
      error: 'Deployment spec does not start with a plain key',
    },
    {
      name: 'an explicit first key (`? key`)',
      text: `${HEAD}spec:\n  ? selector\n  : {}\n`,
      error: 'Deployment spec keys are not on their own lines',
    },
    {
      name: 'an anchor before the first key',
      text: `${HEAD}spec:\n  &s selector: {}\n`,
      error: 'Deployment spec keys are not on their own lines',
    },
  ])('$name', ({ text, error }) => {
    expect(() => setDeploymentReplicas(text, 1)).toThrow(new Error(error));
  });

  it.each([-1, 1.5, Number.NaN])('the count %s', (replicas) => {
    expect(() => setDeploymentReplicas(`${HEAD}spec:\n  replicas: 1\n`, replicas)).toThrow(
      new RangeError(`replicas must be an integer ≥ 0, got ${replicas}`),
    );
  });

  it('accepts 0', () => {
    expect(setDeploymentReplicas(`${HEAD}spec:\n  replicas: 1\n`, 0)).toBe(`${HEAD}spec:\n  replicas: 0\n`);
  });
});
