import { existsSync } from 'node:fs';
import { openStore, statusStoreOf, type StatusStore, type Store } from '../store/index.js';

/**
 * Opens the database of a read-only command (`prs`, `status`). Never creates one: a mistyped
 * SQLite path is an error naming `--database`, not an empty answer.
 * @throws Error naming `--database` when the SQLite file is missing; StoreError when it cannot be opened
 */
export async function openExistingStore(database: string): Promise<Store & StatusStore> {
  const file = database.startsWith('sqlite:') ? database.slice('sqlite:'.length).replace(/^\/\//, '') : null;
  if (file !== null && file !== ':memory:' && !existsSync(file)) {
    throw new Error(`--database: no database at ${file} (gpuops writes it on its first reconcile)`);
  }
  const store = await openStore(database);
  const status = statusStoreOf(store);
  if (!status) {
    await store.close();
    throw new Error(`--database: this store keeps no status or pull request history`);
  }
  return status;
}
