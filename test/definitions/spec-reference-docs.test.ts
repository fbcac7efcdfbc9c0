/**
 * docs/spec-reference.md's "Every field" table has one row for every field of the Algorithm schema
 * (issue 24: rows for every field the spec has), and no row for a field the schema lacks: a field
 * added to `src/definitions/schema/algorithm.ts` without its row fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { algorithmSchema } from '../../src/definitions/schema/algorithm.js';

interface Node {
  type?: string;
  properties?: Record<string, Node>;
  items?: Node;
}

/** Dotted paths of the schema's leaves: `spec.resources.gpus`, `spec.env[].name`, `spec.template.spec`. */
function leaves(node: Node, path: string): string[] {
  if (node.properties)
    return Object.entries(node.properties).flatMap(([k, v]) => leaves(v, path === '' ? k : `${path}.${k}`));
  if (node.type === 'array' && node.items?.properties) return leaves(node.items, `${path}[]`);
  return [path];
}

/** The backticked names of the first cell of each row of the section `## Every field`. */
function documented(markdown: string): string[] {
  const section = markdown.split(/^## Every field$/m)[1]!.split(/^## /m)[0]!;
  const rows = section.split('\n').filter((l) => l.startsWith('| `'));
  return rows.flatMap((r) => [...r.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
}

describe('docs/spec-reference.md', () => {
  const markdown = readFileSync(new URL('../../docs/spec-reference.md', import.meta.url), 'utf8');

  it('the schema walk finds the fields a spec has (the check can fail)', () => {
    const fields = leaves(algorithmSchema as Node, '');
    expect(fields).toContain('spec.gpu.product');
    expect(fields).toContain('spec.env[].name');
    expect(fields).toContain('spec.template.spec');
    expect(documented('## Every field\n| `a.b` | x |\n| `c`, `d` | y |\n## Next\n| `e` |')).toEqual([
      'a.b',
      'c',
      'd',
    ]);
  });

  it('"Every field" has a row for every field of the Algorithm schema, and none for another', () => {
    expect(documented(markdown).sort()).toEqual(leaves(algorithmSchema as Node, '').sort());
  });
});
