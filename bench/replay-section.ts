/**
 * One section of `npm run replay` in a process of its own (`bench/replay.ts` starts every section
 * at once, so the one-service replay's simulated engines, its model and the fleets share the
 * cores): runs `gpuops replay --output both ARGS…` with this process's arguments, then sends the
 * parent `{ code, cpuSeconds }` over IPC — the exit code and the CPU seconds of this process and
 * the processes it started and waited for (the simulated engines and their git processes).
 */
import { main } from '../src/cli/main.js';
import { processCpuSeconds } from '../src/replay/sim-engine.js';

const code = await main([process.argv[0]!, 'gpuops', 'replay', '--output', 'both', ...process.argv.slice(2)]);
process.send!({ code, cpuSeconds: processCpuSeconds() }, () => process.exit(code));
