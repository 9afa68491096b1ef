// engine.learning, the learned-timing switch (docs/configuration.md): "on" unless set, set
// from the configuration file or RESCUED_ENGINE_LEARNING, and anything but on/frozen/off is
// refused naming the key.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'rescued-learning-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ RESCUED_DATA_DIR: dir, ...extra });

function refusal(extra: NodeJS.ProcessEnv): ConfigError | undefined {
  try {
    loadConfig({ env: env(extra) });
    return undefined;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err;
  }
}

describe('engine.learning', () => {
  it('is on by default, and takes frozen or off from the file or the environment', () => {
    expect(loadConfig({ env: env() }).engine.learning).toBe('on');
    const file = join(dir, 'rescued.json');
    writeFileSync(file, JSON.stringify({ engine: { learning: 'frozen' } }));
    expect(loadConfig({ configFile: file, env: env() }).engine.learning).toBe('frozen');
    expect(loadConfig({ configFile: file, env: env({ RESCUED_ENGINE_LEARNING: 'off' }) }).engine.learning).toBe('off');
  });

  it('refuses any other value, naming the key', () => {
    const err = refusal({ RESCUED_ENGINE_LEARNING: 'sometimes' });
    expect(err?.message).toContain('engine.learning');
  });
});
