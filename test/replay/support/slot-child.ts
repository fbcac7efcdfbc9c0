/**
 * A section of a replay in miniature for `slots.test.ts`: asks the parent for a slot for each
 * part named in argv (`name:priority:ms`, all at once), holds it `ms` milliseconds, tells the
 * parent when it starts and ends each part and the part's CPU seconds, then exits; with `--exit`
 * as the last argument it exits while still holding and waiting for slots.
 */
import { parentSlots, reportPartCpu } from '../../../src/replay/slot-channel.js';

const args = process.argv.slice(2);
const exitEarly = args[args.length - 1] === '--exit';
const acquire = parentSlots();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const runs = args
  .filter((a) => a !== '--exit')
  .map(async (a) => {
    const [what, priority, ms] = a.split(':');
    const release = await acquire(what!, Number(priority));
    process.send!({ part: what, state: 'start' });
    if (exitEarly) process.exit(0);
    await sleep(Number(ms));
    process.send!({ part: what, state: 'end' });
    reportPartCpu(what!, Number(ms) / 1000);
    release();
  });
await Promise.all(runs);
process.disconnect();
