/**
 * A real second process for the clone-lock tests: takes the lock of the folder in argv[2] through
 * the product's own `withCloneLock` and prints `held` once it holds it. Mode (argv[3]):
 * `hold` keeps it until killed; `churn` takes and releases it in a tight loop (printing `held`
 * the first time), so a kill lands anywhere in the take / hold / release cycle.
 */
import { withCloneLock } from '../../src/working-copy/clone-lock.js';

const [dir, mode = 'hold'] = process.argv.slice(2);
if (!dir) throw new Error('usage: lock-holder-child.ts DIR [hold|churn]');
let told = false;
const tell = () => {
  if (!told) process.stdout.write('held\n');
  told = true;
};
if (mode === 'hold') {
  await withCloneLock(dir, async () => {
    tell();
    await new Promise(() => setInterval(() => undefined, 1000));
  });
} else {
  for (;;) await withCloneLock(dir, async () => tell(), { pollMs: 1 });
}
