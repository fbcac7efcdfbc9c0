/**
 * Large specs: what a pass pays for a few valid but huge specs, and whether it grows linearly.
 * - One mapping of 20,000 keys (annotations): the YAML library's own duplicate-key check was
 *   quadratic (12 s); `rules/yaml-duplicates.ts` finds duplicates in one walk.
 * - 20 specs of about 1 MiB with 20,000 ports each (the input that made `plan` take 127 s and
 *   731 MiB): refused by their size (`MAX_FILE_BYTES`) before any is read.
 * - 20 specs just under that size, 5,000 ports each: parsed, then refused at the ports cap
 *   (`rules/list-caps.ts`), so no other check and no render runs on them.
 * - A spec at every list cap, validated and rendered (Deployment + Service): what a legal maximum
 *   costs.
 * - Linearity: the time to parse, check and render 4n ports over 4 × the time for n (1: linear,
 *   4: quadratic), past the caps (the same steps without the cap walk).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadWorkloadTemplates } from '../src/benchmark/load-templates.js';
import { loadDefaultPolicy, loadRepo } from '../src/definitions/load.js';
import { parseAlgorithms, resolveAlgorithm } from '../src/definitions/rules/algorithms.js';
import { podTemplateProblems } from '../src/definitions/rules/pod-template.js';
import { parseDocuments } from '../src/definitions/rules/yaml-documents.js';
import { LIST_CAPS } from '../src/definitions/rules/list-caps.js';
import type { Algorithm, Policy } from '../src/definitions/types.js';
import { renderWorkloadFiles } from '../src/manifests/workloads.js';
import { medianMs } from './measure.js';
import type { Figure } from './run.js';

const head = (name: string) =>
  `apiVersion: gpuops.dev/v1alpha1\nkind: Algorithm\nmetadata:\n  name: ${name}\nspec:\n  image: registry.example.com/ml/${name}:1\n  resources: {gpus: 1}\n`;

/** A spec whose container lists `ports` ports, `env` env variables and `volumes` volumes (mounted). */
function wide(name: string, ports: number, env: number, volumes: number): string {
  const lines = [head(name), '  template:', '    spec:'];
  lines.push(
    '      volumes:',
    ...Array.from({ length: volumes }, (_, i) => `        - {name: v${i}, emptyDir: {}}`),
  );
  lines.push('      containers:', '        - ports:');
  lines.push(
    ...Array.from({ length: ports }, (_, i) => `            - {containerPort: ${1000 + i}, name: p${i}}`),
  );
  lines.push(
    '          env:',
    ...Array.from({ length: env }, (_, i) => `            - {name: E${i}, value: "${i}"}`),
  );
  lines.push(
    '          volumeMounts:',
    ...Array.from({ length: volumes }, (_, i) => `            - {name: v${i}, mountPath: /m/${i}}`),
  );
  return `${lines.join('\n')}\n`;
}

/** Validates `text` and renders its workload files; returns the bytes rendered. */
function validateAndRender(
  text: string,
  policy: Policy,
  templates: ReturnType<typeof loadWorkloadTemplates>,
): number {
  const parsed = parseAlgorithms([{ path: 'algorithms/a.yaml', text }], policy);
  if (parsed.errors.length > 0) throw new Error(`spec-size bench: ${parsed.errors[0]!.message}`);
  const files = renderWorkloadFiles({
    algorithm: parsed.algorithms[0]!,
    pool: 'short-task',
    policy: policy.spec,
    cluster: 'c',
    templates,
  });
  return files.reduce((n, f) => n + (f.content?.length ?? 0), 0);
}

export default async function bench(): Promise<Figure[]> {
  const policy = await loadDefaultPolicy();
  const templates = loadWorkloadTemplates();
  const keys = Array.from({ length: 20_000 }, (_, i) => `    k${i}: v`).join('\n');
  const annotated = head('a').replace('  name: a\n', `  name: a\n  annotations:\n${keys}\n`);
  const mapping = await medianMs(async () => {
    parseAlgorithms([{ path: 'algorithms/a.yaml', text: annotated }], policy);
  }, 3);

  const many = async (ports: number): Promise<number> => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gpuops-bench-size-'));
    try {
      await mkdir(path.join(dir, 'algorithms'));
      const list = Array.from(
        { length: ports },
        (_, i) => `            - {containerPort: ${1000 + i}, name: p${i}}`,
      );
      const body = `  template:\n    spec:\n      containers:\n        - ports:\n${list.join('\n')}\n`;
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          writeFile(path.join(dir, `algorithms/a${i}.yaml`), `${head(`a${i}`)}${body}`),
        ),
      );
      let refused = 0;
      const ms = await medianMs(async () => {
        refused = (await loadRepo(dir, policy)).errors.length;
      }, 1);
      if (refused !== 20) throw new Error(`spec-size bench: expected 20 refused specs, got ${refused}`);
      return ms;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
  const huge = await many(20_000);
  const underCap = await many(5_000);

  const capped = wide('capped', LIST_CAPS['ports']!, LIST_CAPS['env']!, LIST_CAPS['volumes']!);
  const atCaps = await medianMs(async () => {
    validateAndRender(capped, policy, templates);
  }, 5);

  // Linearity past the caps: the same steps as validate and render, without the cap walk.
  const time = async (n: number) => {
    const text = wide('lin', n, 0, 0);
    return medianMs(async () => {
      const [doc] = parseDocuments({ path: 'algorithms/a.yaml', text }).documents;
      if (podTemplateProblems(doc!.value, policy, []).length > 0)
        throw new Error('spec-size bench: invalid ports');
      const algorithm = resolveAlgorithm(doc!.value as Algorithm, policy, {
        file: 'algorithms/a.yaml',
        line: 1,
      });
      renderWorkloadFiles({ algorithm, pool: 'short-task', policy: policy.spec, cluster: 'c', templates });
    }, 3);
  };
  const small = await time(2_500);
  const large = await time(10_000);
  return [
    { name: 'validate: one spec with a mapping of 20,000 keys', value: mapping, unit: 'ms', target: 2000 },
    {
      name: 'validate: 20 specs of ~1 MiB, 20,000 ports each (refused by size)',
      value: huge,
      unit: 'ms',
      target: 1000,
    },
    {
      name: 'validate: 20 specs of ~240 KiB, 5,000 ports each (refused at the ports cap)',
      value: underCap,
      unit: 'ms',
      target: 10_000,
    },
    {
      name: 'validate + render: a spec at the ports, env and volumes caps',
      value: atCaps,
      unit: 'ms',
      target: 500,
    },
    {
      name: 'validate + render: time for 4n ports ÷ (4 × time for n), 1 = linear',
      value: large / (4 * small),
      unit: '',
      target: 2,
    },
  ];
}
