/**
 * A one-shot command's shape for the interrupt test: the product's own `onInterrupt`, then the
 * clone-cache lock held (through `withCloneLock`) by a pass that never ends; prints `held` once it
 * holds it. Argument: the clone folder.
 */
import { onInterrupt } from '../../src/cli/interrupt.js';
import { withCloneLock } from '../../src/working-copy/clone-lock.js';

const dir = process.argv[2]!;
onInterrupt('reconcile', 'the reconcile pass (clone, read, decide, write)');
await withCloneLock(dir, async () => {
  process.stdout.write('held\n');
  await new Promise(() => setInterval(() => undefined, 1000));
});
