import type { ModelSettings } from '../../src/replay/model-engine.js';
import { DEFAULT_REPLAY_SETTINGS } from '../../src/replay/replay-settings.js';

/**
 * The replay model's settings as `gpuops replay` defaults them (`DEFAULT_REPLAY_SETTINGS`:
 * start-up 60 s, sample delay 15 s, a pass every 30 s, band 30–80 %), with `maxReplicas`
 * (default 40) and anything else a test is about overridden.
 */
export function modelSettings(over: Partial<ModelSettings> = {}): ModelSettings {
  const { startupSeconds, sampleDelaySeconds, passIntervalSeconds, min, max } = DEFAULT_REPLAY_SETTINGS;
  return { startupSeconds, sampleDelaySeconds, passIntervalSeconds, min, max, maxReplicas: 40, ...over };
}
