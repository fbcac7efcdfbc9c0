import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/config/settings.js';
import { loadKubeConfig } from '../../src/cluster/kubeconfig.js';

const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-kubeconfig-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A kubeconfig file with one cluster, user and context named `name`, pointing at `server`. */
function kubeconfig(file: string, name: string, server: string, currentContext?: string): string {
  const full = path.join(dir, file);
  writeFileSync(
    full,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{ name: ${name}, cluster: { server: '${server}', certificate-authority: ca-${name}.crt } }]`,
      `users: [{ name: ${name}, user: { token: t-${name} } }]`,
      `contexts: [{ name: ${name}, context: { cluster: ${name}, user: ${name} } }]`,
      ...(currentContext ? [`current-context: ${currentContext}`] : []),
      '',
    ].join('\n'),
  );
  return full;
}

const a = kubeconfig('a', 'prod', 'https://a.example:6443', 'prod');
const b = kubeconfig('b', 'prod', 'https://b.example:6443', 'prod');
const c = kubeconfig('c', 'staging', 'https://c.example:6443', 'staging');
const noCurrent = kubeconfig('d', 'dev', 'https://d.example:6443');
const load = (list: string[]) =>
  loadKubeConfig(undefined, { env: { KUBECONFIG: list.join(path.delimiter) }, home: '/nonexistent' });

describe('KUBECONFIG with several files, merged as kubectl merges them', () => {
  it.each([
    {
      list: [a, b],
      server: 'https://a.example:6443',
      clusters: ['prod'],
      why: 'the first file to name a cluster wins',
    },
    {
      list: [b, a],
      server: 'https://b.example:6443',
      clusters: ['prod'],
      why: 'order decides, not the name',
    },
    {
      list: [a, c],
      server: 'https://a.example:6443',
      clusters: ['prod', 'staging'],
      why: 'the first current-context wins; later clusters are added',
    },
    {
      list: [noCurrent, c],
      server: 'https://c.example:6443',
      clusters: ['dev', 'staging'],
      why: 'a file without current-context leaves it to the next',
    },
    {
      list: ['', path.join(dir, 'missing'), c, ''],
      server: 'https://c.example:6443',
      clusters: ['staging'],
      why: 'empty names and missing files are skipped',
    },
  ])('$why', ({ list, server, clusters }) => {
    const kc = load(list);
    expect(kc.getCurrentCluster()?.server).toBe(server);
    expect(kc.getClusters().map((x) => x.name)).toEqual(clusters);
  });

  it('paths inside each file stay relative to that file', () => {
    expect(
      load([a, c])
        .getClusters()
        .map((x) => x.caFile),
    ).toEqual([path.join(dir, 'ca-prod.crt'), path.join(dir, 'ca-staging.crt')]);
  });

  it('the first user of a name wins', () => {
    expect(load([b, a]).getUsers()).toEqual([expect.objectContaining({ name: 'prod', token: 't-prod' })]);
    expect(load([b, a]).getCurrentUser()?.name).toBe('prod');
  });

  it('none of the listed files exists: a usage error naming them', () => {
    const missing = [path.join(dir, 'x'), path.join(dir, 'y')];
    expect(() => load(missing)).toThrow(UsageError);
    expect(() => load(missing)).toThrow(`KUBECONFIG: none of its files exists: ${missing.join(', ')}`);
  });

  it('a file that does not parse: an error naming the file, the others not silently used', () => {
    const bad = path.join(dir, 'bad');
    writeFileSync(bad, 'clusters: [ { name: x\n');
    expect(() => load([a, bad])).toThrow(new RegExp(`^kubeconfig ${bad}: `));
  });
});
