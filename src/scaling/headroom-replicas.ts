/**
 * The replicas of square-root headroom sizing (pure) (`scaling.sizing: headroom`), the Halfin–Whitt staffing rule of
 * queueing theory (Halfin & Whitt 1981, "Heavy-traffic limits for queues with many exponential
 * servers"): the spare capacity a service needs to ride out the load's noise grows like √load,
 * not like load, so
 *
 *     replicas = ceil((L + β·√L) / (gpus × max / 100))
 *
 * with L the offered load in GPUs (Σ pod utilisation / 100 × GPUs per pod), `max` the band's
 * upper end (percent, the per-replica ceiling), β = `scaling.headroomFactor`, within
 * `minReplicas..maxReplicas`. A load of exactly `max` on every replica with β = 0 asks for exactly
 * the current replicas (float noise of 1e-9 is forgiven: 4 pods at 80 % need 4, not 5). No load
 * asks for `minReplicas`; a `max` of 0 asks for `maxReplicas` under any load. A negative load counts
 * as 0; never throws.
 */
export function headroomReplicas(
  loadGpus: number,
  beta: number,
  gpusPerPod: number,
  maxPercent: number,
  minReplicas: number,
  maxReplicas: number,
): number {
  const l = Math.max(0, loadGpus);
  const perReplica = (Math.max(1, gpusPerPod) * maxPercent) / 100;
  if (!(perReplica > 0)) return l > 0 ? maxReplicas : minReplicas;
  const needed = Math.ceil((l + Math.max(0, beta) * Math.sqrt(l)) / perReplica - 1e-9);
  return Math.min(maxReplicas, Math.max(minReplicas, needed));
}
