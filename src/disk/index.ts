/** Folders on the local disk: `makeDirs`, a `mkdir -p` that always ends (an adapter: it writes). */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { makeDirs } from './make-dirs.js';
