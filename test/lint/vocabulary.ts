/**
 * The vocabulary rule: the outside world's names (an accelerator vendor's resources, labels,
 * taints and metrics) and gpuops's own label keys are spelled once, in `src/util/vocabulary.ts`.
 * A string literal elsewhere in `src/` that IS such a name (the whole literal: a key, a metric, a
 * label prefix) is a second spelling. Messages that mention a name in a sentence are not names.
 * The simulated cluster and the local cluster play the outside world (they write what a device
 * plugin, GPU Feature Discovery or an exporter would), so they are left out. Read with the
 * TypeScript compiler's parser; test and generated files are left out.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** The one file that spells the names. */
export const VOCABULARY_FILE = 'src/util/vocabulary.ts';
/** Folders that play the outside world and may spell its names as it does. */
export const OUTSIDE_WORLD = ['src/sim/', 'src/local-cluster/'];

/** A whole literal that is a vendor's or gpuops's name (not its API group, not a URL). */
const NAME =
  /^(?:(?:[a-z0-9-]+\.)*(?:nvidia|amd)\.com\/[A-Za-z0-9._-]*|DCGM_FI_[A-Z0-9_]*|gpuops\.dev\/(?!v1)[a-z-]*|app\.kubernetes\.io\/managed-by)$/;

/** One literal spelled outside the vocabulary: file, line and the literal. */
export interface StrayName {
  file: string;
  line: number;
  text: string;
}

/** Every literal of `root/src` that spells a name outside {@link VOCABULARY_FILE} (see the module comment). */
export function strayNames(root: string): StrayName[] {
  const files: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const p = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(p);
      else if (/\.ts$/.test(e.name) && !/\.(test|generated|d)\.ts$/.test(e.name)) files.push(p);
    }
  };
  walk('src');
  const out: StrayName[] = [];
  for (const file of files.sort()) {
    if (file === VOCABULARY_FILE || OUTSIDE_WORLD.some((f) => file.startsWith(f))) continue;
    const sf = ts.createSourceFile(
      file,
      readFileSync(path.join(root, file), 'utf8'),
      ts.ScriptTarget.Latest,
      true,
    );
    const visit = (node: ts.Node): void => {
      if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && NAME.test(node.text))
        out.push({
          file,
          line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1,
          text: node.text,
        });
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}
