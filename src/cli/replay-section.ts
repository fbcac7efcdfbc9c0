/**
 * One section of `npm run replay` in a process of its own (`bench/replay.ts` starts every section
 * at once, so the one-service replay's simulated engines, its model and the fleets share the
 * cores): runs `gpuops replay --output both ARGS…` with this process's arguments, then sends the
 * parent `{ code, cpuSeconds }` over IPC — the exit code and the CPU seconds of this process and
 * the processes it started and waited for (the simulated engines and their git processes). Its
 * CPU-bound parts wait for the parent's slots (`src/replay/slot-channel.ts`), one more than the cores.
 */
import { main } from './main.js';
import { processCpuSeconds, parentSlots, SLOT_PRIORITY } from '../replay/index.js';

// `--whole-slot`: this section is one part (a fleet, through the model) and holds one of the
// parent's slots while it runs; the one-service section's engines and model take theirs.
const args = process.argv.slice(2);
const whole = args[0] === '--whole-slot';
const release = whole ? await parentSlots()('section', SLOT_PRIORITY.fleet) : undefined;
const code = await main([
  process.argv[0]!,
  'gpuops',
  'replay',
  '--output',
  'both',
  ...args.slice(whole ? 1 : 0),
]);
release?.();
process.send!({ code, cpuSeconds: processCpuSeconds() }, () => process.exit(code));
