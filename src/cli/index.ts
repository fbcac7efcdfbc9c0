/** The `gpuops` command (`bin/gpuops.js` runs `main.ts`); it offers nothing to the other folders. */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export {};
