import type { DcgmGpu } from '../../src/sim/dcgm/page.js';

/**
 * GPU `i` of one A100 node as the simulator's dcgm-exporter page shows it (`formatDcgmPage`,
 * `formatAmdPage`), for page-parser tests: uuid `GPU-<i>`, bus `00000000:1<i>:00.0`, `utilization`
 * percent at `smClockMhz` (default 1410, the A100's), `100·i` MiB of framebuffer used. A GPU with a
 * `pod` runs it as container `c` in namespace `algorithms`; `''` is an idle GPU (no pod labels).
 */
export function dcgmGpu(i: number, pod: string, utilization: number, smClockMhz = 1410): DcgmGpu {
  return {
    gpu: i,
    uuid: `GPU-${i}`,
    pciBusId: `00000000:1${i}:00.0`,
    modelName: 'NVIDIA A100-SXM4-80GB',
    hostname: 'nvidia-dcgm-exporter-x',
    driverVersion: '550.127.05',
    container: pod ? 'c' : '',
    namespace: pod ? 'algorithms' : '',
    pod,
    utilization,
    smClockMhz,
    fbUsedMiB: 100 * i,
    fbFreeMiB: 80_000 - 100 * i,
  };
}
