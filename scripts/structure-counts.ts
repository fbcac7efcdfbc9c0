/**
 * Prints the structure counts: functions over 80 lines and files over 400 lines (totals for
 * `src/`, then apart for the product, the simulator and the bench: `partOf` in
 * test/lint/structure.ts), import circles and up-arrows of `src/`, each finding with its file.
 * Usage: `node --import tsx scripts/structure-counts.ts [ROOT]` (default: this checkout).
 */
import { fileURLToPath } from 'node:url';
import { formatCounts, structureCounts } from '../test/lint/structure.js';

const root = process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url));
process.stdout.write(formatCounts(structureCounts(root)));
