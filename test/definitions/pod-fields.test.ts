import { readFileSync } from 'node:fs';
import * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { POD_FIELDS_FILE, podFieldsSource, podFieldTable } from '../../src/definitions/schema/pod-fields.js';

const models = k8s as unknown as Parameters<typeof podFieldTable>[0];

describe('pod-fields.generated.ts (the Kubernetes pod fields unknown-field checks walk)', () => {
  it('is what the generator writes from @kubernetes/client-node now (regenerate: node --import tsx src/definitions/schema/pod-fields.ts)', () => {
    expect(readFileSync(POD_FIELDS_FILE, 'utf8')).toBe(podFieldsSource(models));
  });

  it('reaches the types a pod template uses, with their real fields', () => {
    const table = podFieldTable(models);
    expect(table['V1PodSpec']?.['volumes']).toBe('Array<V1Volume>');
    expect(table['V1Container']?.['readinessProbe']).toBe('V1Probe');
    expect(table['V1SecretEnvSource']).toEqual({ name: 'string', optional: 'boolean' });
    expect(table['V1EmptyDirVolumeSource']).toEqual({ medium: 'string', sizeLimit: 'string' });
  });
});
