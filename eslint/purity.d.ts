/** Types of `purity.js` for the TypeScript files that read it (the structure lint and `scripts/faces.ts`). */
export declare const PURE_FILES: readonly string[];
export declare const ADAPTER_MODULES: readonly string[];
export declare const PURITY_RULES: Record<string, unknown>;
