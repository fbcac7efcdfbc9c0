/**
 * API discovery documents (`/api`, `/apis`, `/api/v1`, `/apis/<group>/<version>`, `/version`),
 * enough for @kubernetes/client-node's KubernetesObjectApi (which reads `/apis/<g>/<v>` to map a
 * kind to its resource name and scope) and for `kubectl`.
 */
import { RESOURCES, groupVersion } from './resources.js';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** `/version`. */
export function versionInfo(): object {
  return {
    major: '1',
    minor: '31',
    gitVersion: 'v1.31.0-gpuops-sim',
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2024-08-13T00:00:00Z',
    goVersion: 'go1.22.5',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

/** `/api`. */
export function coreVersions(): object {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] };
}

/** `/apis`. */
export function groupList(): object {
  const groups = [...new Set(RESOURCES.filter((r) => r.group).map((r) => r.group))];
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: groups.map((name) => {
      const version = RESOURCES.find((r) => r.group === name)!.version;
      const gv = { groupVersion: `${name}/${version}`, version };
      return { name, versions: [gv], preferredVersion: gv };
    }),
  };
}

/** `/api/v1` or `/apis/<group>/<version>`; undefined when the group version is not served. */
export function resourceList(gv: string): object | undefined {
  const served = RESOURCES.filter((r) => groupVersion(r) === gv);
  if (served.length === 0) return undefined;
  const resources: object[] = [];
  for (const r of served) {
    resources.push({
      name: r.resource,
      singularName: r.kind.toLowerCase(),
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: VERBS,
      ...(r.shortNames ? { shortNames: r.shortNames } : {}),
      ...(r.categories ? { categories: r.categories } : {}),
    });
    for (const sub of r.subresources) {
      const scale = sub === 'scale';
      const eviction = sub === 'eviction';
      resources.push({
        name: `${r.resource}/${sub}`,
        singularName: '',
        namespaced: r.namespaced,
        ...(scale ? { group: 'autoscaling', version: 'v1' } : {}),
        ...(eviction ? { group: 'policy', version: 'v1' } : {}),
        kind: scale ? 'Scale' : eviction ? 'Eviction' : r.kind,
        verbs: eviction ? ['create'] : ['get', 'patch', 'update'],
      });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv, resources };
}
