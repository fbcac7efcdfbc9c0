/**
 * The placement pull request's account of a band proposed from a benchmark (pure): for a spec
 * with `scaling.targets: fromBenchmark`, each bound with where it came from (the benchmark run and
 * the rule's numbers, or the spec), or why nothing was proposed.
 */
import {
  isProposal,
  type BandNotProposed,
  type BandProposal,
  type BoundSource,
} from '../benchmark/band-proposal.js';
import { inert, list, plural, table } from './pr-text.js';

function figure(value: number, unit: string): string {
  return unit === '%' ? `${value} %` : `${value} ${unit}`;
}

function maxFrom(p: BandProposal): string {
  const r = p.recorded;
  if (p.max.from === 'spec')
    return 'the spec (`utilization.max` / `serviceMetric.max`): a person\u2019s bound wins';
  const runs = list(r.jobs.map((j) => `\`${j}\``));
  return `benchmark ${r.jobs.length === 1 ? 'run' : 'runs'} ${runs} at ${r.at} (${plural(r.samples, 'sample')} of \`${r.signal}\`): saturation ${figure(r.value, p.unit)} × (1 − headroom ${p.headroom})`;
}

function minFrom(p: BandProposal, min: BoundSource): string {
  if (min.from === 'spec')
    return 'the spec (`utilization.min` / `serviceMetric.min`): a person\u2019s bound wins';
  return `max ${figure(p.max.value, p.unit)} × band ratio ${p.bandRatio}`;
}

/**
 * The section: a table of the two bounds, each with its source (`max 69.7 % from benchmark run
 * <job> at <time>: saturation 82 % × (1 − headroom 0.15)`), or the reason nothing was proposed.
 */
export function bandSection(band: BandProposal | BandNotProposed): string {
  if (!isProposal(band)) {
    return `**No band proposed from the benchmark** (\`spec.scaling.targets: fromBenchmark\`): ${inert(band.reason)}. The band is the spec\u2019s, else the policy\u2019s.`;
  }
  return [
    `**Band proposed from the benchmark** (\`spec.scaling.targets: fromBenchmark\`, rule of the policy's \`scaling.fromBenchmark\`): every scaling decision judges it.`,
    '',
    table(
      ['bound', 'value', 'from'],
      [
        ['max', figure(band.max.value, band.unit), maxFrom(band)],
        ['min', figure(band.min.value, band.unit), minFrom(band, band.min)],
      ],
    ),
  ].join('\n');
}
