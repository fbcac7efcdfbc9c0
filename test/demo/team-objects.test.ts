import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EXAMPLES_DIR } from '../../src/demo/scenario.js';
import { demoClaims, demoTeamObjects } from '../../src/demo/team-objects.js';

/** Every Secret and claim name an object tree refers to (env, envFrom, volumes). */
function references(node: unknown, out: { secrets: Set<string>; claims: Set<string> }): void {
  if (Array.isArray(node)) for (const v of node) references(v, out);
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    const name = (k: string) =>
      o[k] as { name?: string; claimName?: string; secretName?: string } | undefined;
    if (name('secretKeyRef')?.name) out.secrets.add(name('secretKeyRef')!.name!);
    if (name('secretRef')?.name) out.secrets.add(name('secretRef')!.name!);
    if (name('secret')?.secretName) out.secrets.add(name('secret')!.secretName!);
    if (name('persistentVolumeClaim')?.claimName) out.claims.add(name('persistentVolumeClaim')!.claimName!);
    for (const v of Object.values(o)) references(v, out);
  }
}

describe('demoTeamObjects', () => {
  const dir = path.join(EXAMPLES_DIR, 'algorithms');
  const refs = { secrets: new Set<string>(), claims: new Set<string>() };
  for (const f of readdirSync(dir)) references(parse(readFileSync(path.join(dir, f), 'utf8')), refs);
  const objects = demoTeamObjects();
  const names = (kind: string) =>
    objects
      .filter((o) => o.kind === kind && o.metadata.namespace === 'algorithms')
      .map((o) => o.metadata.name);

  it('holds every Secret and claim the examples refer to, and no other', () => {
    expect(refs.secrets.size).toBeGreaterThan(0);
    expect(names('Secret').sort()).toEqual([...refs.secrets].sort());
    expect(names('PersistentVolumeClaim').sort()).toEqual([...refs.claims].sort());
    expect(demoClaims()).toEqual([...refs.claims].sort().map((c) => `algorithms/${c}`));
  });

  it('binds each claim to its own volume of the same size and access mode, Namespace first', () => {
    expect(objects[0]).toMatchObject({ kind: 'Namespace', metadata: { name: 'algorithms' } });
    type Pv = {
      capacity: { storage: string };
      accessModes: string[];
      claimRef: { name: string; namespace: string };
    };
    type Pvc = { volumeName: string; accessModes: string[]; resources: { requests: { storage: string } } };
    for (const claim of objects.filter((o) => o.kind === 'PersistentVolumeClaim')) {
      const spec = claim.spec as Pvc;
      const pv = objects.find((o) => o.kind === 'PersistentVolume' && o.metadata.name === spec.volumeName);
      expect((pv?.spec as Pv).claimRef).toEqual({ namespace: 'algorithms', name: claim.metadata.name });
      expect((pv?.spec as Pv).capacity.storage).toBe(spec.resources.requests.storage);
      expect((pv?.spec as Pv).accessModes).toEqual(spec.accessModes);
    }
  });
});
