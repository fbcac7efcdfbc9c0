/** Server-side apply (simplified structured merge): ownership, removal, conflicts. */
import { describe, expect, it } from 'vitest';
import { fieldsOf, serverSideApply } from '../../src/sim/apply.js';
import { SimApiError, type KubeObject } from '../../src/sim/types.js';

const now = new Date('2026-11-01T00:00:00Z');
const opts = (manager: string, force = false) => ({ manager, force, apiVersion: 'apps/v1', now });

const deployment = (env: { name: string; value: string }[], replicas?: number): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'algorithms', labels: { app: 'web' } },
  spec: {
    ...(replicas === undefined ? {} : { replicas }),
    template: { spec: { containers: [{ name: 'main', image: 'img:1', env }] } },
  },
});

describe('fieldsOf', () => {
  it('names keyed list elements and skips what the server owns', () => {
    expect(
      fieldsOf(deployment([{ name: 'A', value: '1' }], 2) as unknown as Record<string, unknown>),
    ).toEqual({
      'f:metadata': { 'f:labels': { 'f:app': {} } },
      'f:spec': {
        'f:replicas': {},
        'f:template': {
          'f:spec': {
            'f:containers': {
              'k:{"name":"main"}': {
                '.': {},
                'f:name': {},
                'f:image': {},
                'f:env': { 'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
              },
            },
          },
        },
      },
    });
  });
});

describe('serverSideApply', () => {
  const live = (): KubeObject => {
    const obj = serverSideApply(
      undefined,
      deployment(
        [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
        3,
      ),
      opts('argocd'),
    );
    obj.status = { replicas: 3 };
    obj.metadata.annotations = { 'deployment.kubernetes.io/revision': '1' };
    return obj;
  };

  it('removes the fields and list elements the manager no longer applies, keeping others', () => {
    const out = serverSideApply(live(), deployment([{ name: 'A', value: '1' }]), opts('argocd'));
    expect(out.spec.replicas).toBeUndefined();
    expect(out.spec.template.spec.containers[0].env).toEqual([{ name: 'A', value: '1' }]);
    expect(out.metadata.annotations).toEqual({ 'deployment.kubernetes.io/revision': '1' });
    expect(out.status).toEqual({ replicas: 3 });
  });

  it('keeps a field another apply manager also owns', () => {
    const shared = serverSideApply(live(), { ...deployment([]), spec: { replicas: 3 } }, opts('hpa-helper'));
    const out = serverSideApply(shared, deployment([{ name: 'A', value: '1' }]), opts('argocd'));
    expect(out.spec.replicas).toBe(3);
    expect(out.metadata.managedFields?.map((m) => (m as { manager: string }).manager)).toEqual([
      'argocd',
      'hpa-helper',
    ]);
  });

  it('raises 409 Conflict when another manager owns a field with a different value, naming it', () => {
    let caught: unknown;
    try {
      serverSideApply(live(), { ...deployment([]), spec: { replicas: 5 } }, opts('other'));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SimApiError);
    expect((caught as SimApiError).code).toBe(409);
    expect((caught as SimApiError).message).toContain('conflict with "argocd": spec.replicas');
  });

  it('with force, takes the field over and drops a manager left owning nothing', () => {
    const base = serverSideApply(
      undefined,
      { ...deployment([]), metadata: { name: 'web' }, spec: { replicas: 1 } },
      opts('first'),
    );
    const out = serverSideApply(
      base,
      { ...deployment([]), metadata: { name: 'web' }, spec: { replicas: 4 } },
      opts('second', true),
    );
    expect(out.spec.replicas).toBe(4);
    expect(out.metadata.managedFields?.map((m) => (m as { manager: string }).manager)).toEqual(['second']);
  });

  it('leaves managedFields untouched when the same configuration is applied again', () => {
    const first = live();
    const again = serverSideApply(
      first,
      deployment(
        [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
        3,
      ),
      {
        ...opts('argocd'),
        now: new Date('2027-01-01T00:00:00Z'),
      },
    );
    expect(again.metadata.managedFields).toEqual(first.metadata.managedFields);
    expect(again.spec).toEqual(first.spec);
  });
});
