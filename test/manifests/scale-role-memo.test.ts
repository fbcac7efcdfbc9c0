/** bindsScaleRole keeps its answers by file content: one parse per file, however many passes ask. */
import { describe, expect, it, vi } from 'vitest';

// Counts the YAML parses bindsScaleRole makes (the real parser answers).
const parses = vi.hoisted(() => ({ n: 0 }));
vi.mock('yaml', async (importOriginal) => {
  const real = await importOriginal<typeof import('yaml')>();
  return {
    ...real,
    parseAllDocuments: ((...args: Parameters<typeof real.parseAllDocuments>) => {
      parses.n++;
      return real.parseAllDocuments(...args);
    }) as typeof real.parseAllDocuments,
  };
});

const { bindsScaleRole, renderNamespaceFile, DEFAULT_SERVICE_ACCOUNT } =
  await import('../../src/manifests/namespaces.js');

describe('bindsScaleRole (issue 42: kept answers by content)', () => {
  it('parses a namespace file once however often a pass asks, and answers a changed file afresh', () => {
    const scaled = renderNamespaceFile('prod', 'memo-a', DEFAULT_SERVICE_ACCOUNT, { scale: true }).content;
    const plain = renderNamespaceFile('prod', 'memo-a', DEFAULT_SERVICE_ACCOUNT, { scale: false }).content;
    const before = parses.n;
    for (let pass = 0; pass < 5; pass++) expect(bindsScaleRole(scaled)).toBe(true);
    expect(parses.n - before).toBe(1);
    // The file loses its binding, then gets it back: each content answers for itself.
    expect(bindsScaleRole(plain)).toBe(false);
    expect(bindsScaleRole(plain)).toBe(false);
    expect(bindsScaleRole(scaled)).toBe(true);
    expect(parses.n - before).toBe(2);
    // A copy of the same text (a fresh read of the file) is the same answer, not a new parse.
    expect(bindsScaleRole(`${scaled}`.slice(0))).toBe(true);
    expect(bindsScaleRole(scaled.split('').join(''))).toBe(true);
    expect(parses.n - before).toBe(2);
  });
});
