/** The database: `openStore(url)` and the record types. */
export { openStore, DEFAULT_KEEP_SNAPSHOTS, type OpenStoreOptions } from './open-store.js';
export { StoreError, redactUrl } from './errors.js';
export { StoreConnectionError, connectionError } from './connect-error.js';
export { StoreSchemaBehindError } from './schema-behind.js';
export type * from './types.js';
export { statusStoreOf } from './status-store.js';
