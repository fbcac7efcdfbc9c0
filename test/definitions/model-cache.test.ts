/**
 * `spec.modelCache` at its boundaries: each row is a spec that must be refused, located at
 * line:column and field, beside the neighbour across the boundary that passes. The fill step has
 * no field of its own to confine: anything but image, command and args is an unknown field.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { parseAlgorithms } from '../../src/definitions/rules/algorithms.js';
import type { Policy } from '../../src/definitions/types.js';

let defaults: Policy;
beforeAll(async () => {
  defaults = await loadDefaultPolicy();
});

/** An Algorithm with `modelCache` (flow YAML, on line 7) and a pod template (line 9). */
const spec = (cache: string, pod = '{}') =>
  [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Algorithm',
    'metadata: {name: llama}',
    'spec:',
    '  image: registry.example.com/ml/llama:1.0',
    '  resources: {gpus: 1}',
    `  modelCache: ${cache}`,
    '  template:',
    `    spec: ${pod}`,
    '',
  ].join('\n');

const errorsOf = (cache: string, pod?: string) =>
  parseAlgorithms([{ path: 'algorithms/llama.yaml', text: spec(cache, pod) }], defaults).errors.map(
    (e) => `${e.file}:${e.line} ${e.field}: ${e.message}`,
  );

const fill = 'fill: {image: registry.example.com/ml/fetch:1.0, args: [llama-3-8b]}';
const at = (path: string) => `{claimName: models, mountPath: "${path}", ${fill}}`;
const MOUNT = 'algorithms/llama.yaml:7 spec.modelCache.mountPath';

/** [what, refused spec, the message's start, the neighbour that passes]. */
const ROWS: [string, string, string, string, string?][] = [
  ['a relative path', at('models'), `${MOUNT}: "models" is not an absolute path`, at('/models')],
  ['the root', at('/'), `${MOUNT}: the root directory would hide the whole image`, at('/m')],
  ['/etc itself', at('/etc'), `${MOUNT}: "/etc" is at or below /etc`, at('/etcetera')],
  ['below /etc', at('/etc/models'), `${MOUNT}: "/etc/models" is at or below /etc`, at('/models/etc')],
  [
    'below /usr',
    at('/usr/local/models'),
    `${MOUNT}: "/usr/local/models" is at or below /usr`,
    at('/opt/models'),
  ],
  ['/proc', at('/proc'), `${MOUNT}: "/proc" is at or below /proc`, at('/processed')],
  [
    'the ServiceAccount mount',
    at('/var/run/secrets/models'),
    `${MOUNT}: "/var/run/secrets/models" is at or below /var/run/secrets`,
    at('/var/run/models'),
  ],
  [
    'a ".." segment',
    at('/models/../etc'),
    `${MOUNT}: "/models/../etc" holds a ".." segment`,
    at('/models/..x'),
  ],
  [
    'a "." segment in front of /etc (the kernel resolves it to /etc)',
    at('/./etc'),
    `${MOUNT}: "/./etc" is at or below /etc`,
    at('/./models'),
  ],
  [
    'a "." segment below /dev',
    at('/dev/./shm'),
    `${MOUNT}: "/dev/./shm" is at or below /dev`,
    at('/.dev/shm'),
  ],
  ['an empty path', at(''), `${MOUNT}: must not be empty`, at('/x')],
  ['a tab inside', at('/mo\\tdels'), `${MOUNT}: "/mo\\tdels" holds a control character`, at('/mo dels')],
  ['a tab in front', at('\\t/models'), `${MOUNT}: "\\t/models" holds a control character`, at('/models')],
  [
    'a newline at the end',
    at('/models\\n'),
    `${MOUNT}: "/models\\n" holds a control character`,
    at('/models'),
  ],
  [
    'a space at the end',
    at('/models '),
    `${MOUNT}: "/models " starts or ends with white space`,
    at('/my models'),
  ],
  [
    'a space in front',
    at(' /models'),
    `${MOUNT}: " /models" starts or ends with white space`,
    at('/ models'),
  ],
  [
    'a Docker-style option after ":"',
    at('/models:ro'),
    `${MOUNT}: "/models:ro" holds ":": a mount path takes no options`,
    at('/models.ro'),
  ],
  ['a ":" at the end', at('/models:'), `${MOUNT}: "/models:" holds ":"`, at('/models')],
  [
    'the parent of the ServiceAccount mount',
    at('/var/run'),
    `${MOUNT}: "/var/run" is above /var/run/secrets`,
    at('/var/runner'),
  ],
  [
    '/var/run written with slashes',
    at('//var/run/'),
    `${MOUNT}: "//var/run/" is above /var/run/secrets`,
    at('/var/lib/models'),
  ],
  ['/var', at('/var'), `${MOUNT}: "/var" is above /var/run/secrets`, at('/variant')],
  ['/run', at('/run'), `${MOUNT}: "/run" is above /run/secrets`, at('/runs')],
  [
    'a name longer than Linux allows (NAME_MAX)',
    at(`/${'m'.repeat(256)}`),
    `${MOUNT}: "/${'m'.repeat(256)}" is longer than Linux allows (255 bytes a name)`,
    at(`/${'m'.repeat(255)}`),
  ],
  [
    'a path longer than Linux allows (PATH_MAX)',
    at(`/${'m/'.repeat(2047)}m`),
    `is longer than Linux allows (4095 bytes in all)`,
    at(`/${'m/'.repeat(2046)}mm`),
  ],
  [
    'a directory above a mount of the container (its mount point inside the read-only cache)',
    at('/models'),
    `${MOUNT}: "/models" is above spec.template.spec.containers[0].volumeMounts[0] ("/models/tmp")`,
    at('/models/tm'),
    '{volumes: [{name: scratch, emptyDir: {}}], containers: [{volumeMounts: [{name: scratch, mountPath: /models/tmp}]}]}',
  ],
  [
    'a path the container mounts already (as written differently)',
    at('//models/'),
    `${MOUNT}: "//models/" is already mounted by spec.template.spec.containers[0].volumeMounts[0]`,
    at('/models/v2'),
    '{volumes: [{name: scratch, emptyDir: {}}], containers: [{volumeMounts: [{name: scratch, mountPath: /models}]}]}',
  ],
  [
    'a claim name that is no object name',
    `{claimName: Models_1, mountPath: /models, ${fill}}`,
    'algorithms/llama.yaml:7 spec.modelCache.claimName: ',
    `{claimName: models.v1, mountPath: /models, ${fill}}`,
  ],
  [
    'no claim name',
    `{mountPath: /models, ${fill}}`,
    'algorithms/llama.yaml:7 spec.modelCache.claimName: required field "claimName" is missing',
    `{claimName: m, mountPath: /models, ${fill}}`,
  ],
  [
    'a fill image the kubelet cannot pull',
    '{claimName: models, mountPath: /models, fill: {image: Registry.example.com/ML/fetch:1.0}}',
    'algorithms/llama.yaml:7 spec.modelCache.fill.image: "Registry.example.com/ML/fetch:1.0" has upper-case letters in its path',
    '{claimName: models, mountPath: /models, fill: {image: Registry.example.com/ml/fetch:1.0}}',
  ],
  [
    'a fill without an image',
    '{claimName: models, mountPath: /models, fill: {args: [x]}}',
    'algorithms/llama.yaml:7 spec.modelCache.fill.image: required field "image" is missing',
    '{claimName: models, mountPath: /models}',
  ],
  [
    'a fill that asks for privilege (no such field: the fill is confined by construction)',
    '{claimName: models, mountPath: /models, fill: {image: busybox, securityContext: {privileged: true}}}',
    'algorithms/llama.yaml:7 spec.modelCache.fill.securityContext: unknown field',
    '{claimName: models, mountPath: /models, fill: {image: busybox, command: [sh, -c, "true"]}}',
  ],
  [
    "a template volume of gpuops's name",
    at('/models'),
    'algorithms/llama.yaml:9 spec.template.spec.volumes[0].name: the volume name "model-cache" is the one gpuops mounts',
    at('/models'),
    '{volumes: [{name: model-cache, emptyDir: {}}]}',
  ],
];

describe('spec.modelCache: refused at the boundary, the neighbour passes', () => {
  it.each(ROWS)('%s', (_what, refused, message, neighbour, pod) => {
    const errors = errorsOf(refused, pod);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(message);
    const okPod = pod?.includes('model-cache') ? '{volumes: [{name: model-cache-2, emptyDir: {}}]}' : pod;
    expect(errorsOf(neighbour, okPod)).toEqual([]);
  });

  it('a refused claim name does not hide a mount path that is refused too', () => {
    expect(errorsOf('{claimName: 5, mountPath: /proc}')).toEqual([
      expect.stringContaining('algorithms/llama.yaml:7 spec.modelCache.claimName: must be a string'),
      expect.stringContaining(`${MOUNT}: "/proc" is at or below /proc`),
    ]);
    expect(errorsOf('{claimName: models, mountPath: /proc, fill: {image: busybox, args: 5}}')).toEqual([
      expect.stringContaining(`${MOUNT}: "/proc" is at or below /proc`),
      expect.stringContaining('algorithms/llama.yaml:7 spec.modelCache.fill.args: must be a list'),
    ]);
    expect(errorsOf('{claimName: 5, mountPath: /models}')).toHaveLength(1);
  });

  it('a valid model cache is kept on the resolved algorithm', () => {
    const parsed = parseAlgorithms([{ path: 'algorithms/llama.yaml', text: spec(at('/models')) }], defaults);
    expect(parsed.algorithms[0]?.spec.modelCache).toEqual({
      claimName: 'models',
      mountPath: '/models',
      fill: { image: 'registry.example.com/ml/fetch:1.0', args: ['llama-3-8b'] },
    });
  });
});
