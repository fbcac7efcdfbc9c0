/**
 * Golden-file helpers of `test/golden/*.test.ts`: compare a rendered text with the file under
 * `expected/` byte for byte, or write it there with `UPDATE_GOLDEN=1`.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Service } from 'kubernetes-models/v1/Service';
import { parse } from 'yaml';
import { expect } from 'vitest';

/** `test/golden/expected/`. */
export const EXPECTED = fileURLToPath(new URL('./expected/', import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';

/** Compares `actual` with `expected/<rel>` (writes it first with `UPDATE_GOLDEN=1`). */
export function golden(rel: string, actual: string): void {
  const file = path.join(EXPECTED, rel);
  if (update) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, actual);
  }
  expect(existsSync(file), `missing golden file ${file}; run with UPDATE_GOLDEN=1`).toBe(true);
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

/** Every file below `dir`, as paths relative to `expected/`. */
export function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? listFiles(full) : [path.relative(EXPECTED, full)];
  });
}

/** The kubernetes-models class of each kind gpuops renders for an algorithm. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  Deployment,
  HorizontalPodAutoscaler,
  Job,
  Service,
};

/**
 * Checks one rendered object (YAML text) against the Kubernetes schema of its kind
 * (kubernetes-models 4.5.0), as a test assertion: a kind gpuops should not render, or a field
 * the schema refuses, fails the test.
 */
export function expectValidObject(text: string): void {
  const obj = parse(text) as { kind: string };
  const Model = MODELS[obj.kind];
  expect(Model, obj.kind).toBeDefined();
  expect(() => new Model!(obj as never).validate()).not.toThrow();
}
