import type { Command } from 'commander';
import { register as benchmark } from './benchmark.js';
import { register as demo } from './demo.js';
import { register as plan } from './plan.js';
import { register as prs } from './prs.js';
import { register as reconcile } from './reconcile.js';
import { register as run } from './run.js';
import { register as sim } from './sim.js';
import { register as snapshot } from './snapshot.js';
import { register as validate } from './validate.js';

/** A command module adds one subcommand to the program. */
export type RegisterCommand = (program: Command) => void;

/** Every subcommand, in the order `gpuops --help` lists them. */
export const COMMANDS: RegisterCommand[] = [
  demo,
  validate,
  plan,
  reconcile,
  run,
  snapshot,
  benchmark,
  prs,
  sim,
];
