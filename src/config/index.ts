/** Settings: the resolved settings of a command (flags, environment, files) and how secrets are read. */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { settingsSecrets } from './secrets.js';
export { CONNECTION_OPTIONS, resolveSettings, settingsWith, UsageError } from './settings.js';
export type { GitOpsSettings, Settings } from './settings.js';
