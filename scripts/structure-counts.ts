/**
 * Prints the structure counts of `src/` (issue 27): functions over 80 lines, files over 400
 * lines, import circles and up-arrows, each finding with its file.
 * Usage: `node --import tsx scripts/structure-counts.ts [ROOT]` (default: this checkout).
 */
import { fileURLToPath } from 'node:url';
import { formatCounts, structureCounts } from '../test/lint/structure.js';

const root = process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url));
process.stdout.write(formatCounts(structureCounts(root)));
